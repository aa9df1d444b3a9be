import { hintTexts } from '@app/asset-registry';
import type { ToolDefinition } from '@app/tools';
import { escapeRegExp, normalizeText } from '../knowledge/text-match.util';
import { schemaProperties } from '../plan/schema-introspection.util';
import { READ_WORDS, WRITE_ACTIONS } from './action-lexicon';
import { stemWord } from './question-analysis';

/** What one part of a question asks: the write actions it requests, and whether it asks to be shown something. */
export interface ClauseRequest {
  write: Set<string>;
  read: boolean;
  /** The part requests an action the lexicon does not know ("수리요청도 넣어줘"): which tools do it is unknown. */
  unknownWrite: boolean;
}

/**
 * Words before an English imperative that keep it a request ("please cancel", "can you cancel", "I'd like
 * to cancel", "then cancel", "if so, cancel").
 */
const EN_LEAD =
  /^(?:(?:please|pls|plz|kindly|ok|okay|so|then|and|also|now|just|hey|hi|go ahead and|help me|let'?s|if (?:yes|so|not|possible|needed|it is|there is)|(?:can|could|would|will) (?:you|u)|(?:i|we)(?:'d| would)? (?:need|want|like|have)(?: you)? to|need to|want to|you (?:need|have) to|make sure to|try to)[\s,]+)/;
const EN_WORD = /^[a-z][a-z'-]*/;
/** Words after a leading verb form that make it a noun ("order status", "schedule for", "log of"). */
const NOUN_FOLLOWERS =
  /^(?:is|are|was|were|has|have|of|status|history|list|details?|number|no|id|ids|info|summary|report|count|dates?|times?)\b/;

/** Korean: the forms of 주다/드리다 (and 보다) after a verb that make it a request ("...해줘", "...해 주세요"). */
const KO_GIVE = '줘|줘요|주세요|주십시오|주실|줄래|줄\\s*수|주라|달라|드려|드릴|드리|봐';
/** Korean: the endings after an action noun that make it a request ("취소해줘", "취소 처리 부탁해", "연장해 주세요"). */
const KO_NOUN_REQUEST = `(?:\\s*좀)?\\s*(?:처리|진행)?\\s*(?:좀\\s*)?(?:(?:해|넣어|잡아|걸어)\\s*(?:${KO_GIVE}|라)|(?:부탁|요청)\\s*(?:해|드려|드립|합니|요|$|[.!~])|해(?=$|[\\s.!~?])|하자|합시다|하세요|ㄱㄱ)`;
/** Korean: the endings after a verb stem that make it a request ("바꿔줘", "옮겨 주세요", "늘려."). */
const KO_VERB_REQUEST = `(?:\\s*좀)?\\s*(?:${KO_GIVE}|(?=\\s*$|[.!~]))`;

/** Korean: a request ending after any word ("넣어줘", "해주세요", "처리 부탁"). */
const KO_ANY_REQUEST =
  /(?:해|넣어|걸어|올려|잡아|처리|진행)\s*(?:줘|줘요|주세요|주십시오|주실|줄래|주라|달라|드려|드리)|(?:부탁|요청)\s*(?:해|드려|드립|합니|$|[.!~])/;

/** Korean: a condition to check ("비어있으면", "부족하면"): the part asks what is so. */
const KO_CONDITION = /(?:있으|없으|되|않으|하|라|지|이)면$/;

const KO_PATTERNS = WRITE_ACTIONS.map((concept) => ({
  id: concept.id,
  pattern: new RegExp(
    [
      ...concept.koNouns.map((noun) => `${escapeRegExp(noun)}${KO_NOUN_REQUEST}`),
      ...concept.koVerbs.map((verb) => `${escapeRegExp(verb)}${KO_VERB_REQUEST}`),
    ].join('|') || '(?!)',
  ),
}));
const EN_VERBS = new Map<string, string>(
  WRITE_ACTIONS.flatMap((concept) => concept.en.map((verb) => [verb, concept.id] as [string, string])),
);
const EN_READ = new Set(READ_WORDS.en);
const KO_READ = new RegExp(READ_WORDS.ko.map(escapeRegExp).join('|'));

const NO_WORDS: ReadonlySet<string> = new Set();

/**
 * The words that open a request to be shown something besides the lexicon's: the last word of the name of a
 * tool that changes nothing ("<x>_track", "<x>_lookup": "track NR... and file a claim" asks to see the tracking).
 */
export function readVerbsOf(tools: ToolDefinition[]): Set<string> {
  return new Set(
    tools
      .filter((tool) => tool.has_side_effects === false)
      .map(
        (tool) =>
          tool.name
            .toLowerCase()
            .split(/[_\s-]+/)
            .pop() ?? '',
      )
      .filter((word) => /^[a-z]{4,}$/.test(word))
      .map(stemWord),
  );
}

/**
 * The request one part of a question makes (language mechanics and the action lexicon; `readVerbs`, from the
 * tools' names, open a request to be shown something too).
 */
export function clauseRequest(clause: string, readVerbs: ReadonlySet<string> = NO_WORDS): ClauseRequest {
  const text = normalizeText(clause).trim();
  const write = new Set<string>();
  // English: an imperative at the start of the part, after the words that keep it a request.
  let rest = text.replace(/^[^a-z\uac00-\ud7a3]+/, '');
  for (let previous = ''; previous !== rest;) {
    previous = rest;
    rest = rest.replace(EN_LEAD, '');
  }
  const led = rest !== text.replace(/^[^a-z\uac00-\ud7a3]+/, '');
  const first = rest.match(EN_WORD)?.[0] ?? '';
  const concept = EN_VERBS.get(first);
  // The word is a noun there, not an imperative, when a verb, "of" or a noun of record follows it ("order
  // status for C1", "log of errors", "bill is"), or when it opens a bare question ("schedule for Monday?");
  // words before it that keep a request ("can you book...?") make it one again.
  const next = rest.slice(first.length).trim();
  const noun = NOUN_FOLLOWERS.test(next) || (!led && /\?\s*$/.test(text));
  if (concept && !noun) write.add(concept);
  // A condition before the request ("if it's low order 50", "if it really got damaged file the claim"): the
  // first action verb after the condition's subject and verb is the imperative.
  if (!write.size && /^(?:if|when|once|unless)\b/.test(rest)) {
    const words = rest.split(/\s+/);
    for (let i = 3; i < words.length; i++) {
      const verb = EN_VERBS.get(words[i]);
      const after = words.slice(i + 1).join(' ');
      if (verb && !/^(?:to|it|is|was|be|been|'s)$/.test(words[i - 1]) && !NOUN_FOLLOWERS.test(after)) {
        write.add(verb);
        break;
      }
    }
  }
  for (const { id, pattern } of KO_PATTERNS) if (pattern.test(text)) write.add(id);
  const read =
    !write.size &&
    (text.includes('?') ||
      EN_READ.has(first) ||
      readVerbs.has(stemWord(first)) ||
      EN_READ.has(rest.match(/^\S+\s+(\S+)/)?.[1] ?? '') ||
      KO_READ.test(text) ||
      KO_CONDITION.test(text));
  const unknownWrite = !write.size && !read && KO_ANY_REQUEST.test(text);
  return { write, read, unknownWrite };
}

/**
 * The parts of a question with the question mark that ended each (splitting at "?" drops it): a part asked
 * as a question asks to be shown something.
 */
export function withQuestionMarks(query: string, clauses: string[]): string[] {
  const text = normalizeText(query);
  let from = 0;
  return clauses.map((clause) => {
    const at = text.indexOf(normalizeText(clause), from);
    if (at < 0) return clause;
    from = at + clause.length;
    return /^\s*\?/.test(text.slice(from)) && !clause.includes('?') ? `${clause}?` : clause;
  });
}

/**
 * What a question's parts request together: every write action, whether some part asks to be shown something,
 * and whether every part does (`readOnly`: the question asks only to be shown things).
 */
export function questionRequest(
  clauses: string[],
  readVerbs: ReadonlySet<string> = NO_WORDS,
): ClauseRequest & { readOnly: boolean } {
  const requests = clauses.map((clause) => clauseRequest(clause, readVerbs));
  return {
    write: new Set(requests.flatMap((request) => [...request.write])),
    read: requests.some((request) => request.read),
    unknownWrite: requests.some((request) => request.unknownWrite),
    readOnly: requests.length > 0 && requests.every((request) => request.read),
  };
}

/** The words of a published text by stem (English) and as written (Korean, matched inside words). */
function textMentions(text: string): (concept: (typeof WRITE_ACTIONS)[number]) => boolean {
  const lower = normalizeText(text).replace(/_/g, ' ');
  const stems = new Set((lower.match(/[a-z]+/g) ?? []).map(stemWord));
  return (concept) =>
    concept.en.some((verb) => stems.has(stemWord(verb))) ||
    concept.koNouns.some((noun) => lower.includes(noun)) ||
    concept.koVerbs.some((verb) => lower.includes(verb));
}

/**
 * The least score at which the tool performing a requested action is added for it: some evidence of its own
 * beyond the action word (a verb as broad as "add" or "change" alone does not name a tool).
 */
const PERFORMER_FLOOR = 0.1;

/**
 * The least score at which the likeliest side-effect-free tool answers a question asking only to be shown
 * something, when the tools chosen for it all change things: about the score one value of a tool's own
 * inputs gives (see SLOT_SCORE in fallback-planner), short of the usual bar.
 */
const READER_FLOOR = 0.25;
/**
 * The least score on its own words at which a part asking to be shown something, beside parts requesting
 * actions, gets the tool that shows things (the score one value of a tool's own inputs gives, as above).
 */
const READ_PART_FLOOR = 0.25;

const TOOL_ACTIONS = new WeakMap<ToolDefinition, Set<string>>();

/**
 * The write actions a tool performs, read from what its owner published: the words of its name, the first
 * sentence of its description (what it does; later sentences tell what it does not do or what to use
 * instead), the values of its own enum inputs ("action": cancel) and its hint keywords. A tool published as
 * having no side effects performs none.
 */
export function toolActions(tool: ToolDefinition): Set<string> {
  let actions = TOOL_ACTIONS.get(tool);
  if (actions) return actions;
  actions = new Set();
  if (tool.has_side_effects !== false) {
    const headline = tool.description.split(/[.;。\n]\s|\s[—–]\s|\s-\s/)[0] ?? '';
    const enums = schemaProperties(tool.input_schema)
      .filter((p) => p.enumValues && !p.catalogColumn && !p.catalogTable)
      .flatMap((p) => p.enumValues!);
    const keywords = hintTexts(tool.planning_hints?.keywords ?? undefined);
    const mentions = [tool.name, headline, enums.join(' '), ...keywords].map(textMentions);
    for (const concept of WRITE_ACTIONS) if (mentions.some((m) => m(concept))) actions.add(concept.id);
  }
  TOOL_ACTIONS.set(tool, actions);
  return actions;
}

/**
 * The chosen tools, checked against the actions the question requests ("cancel X", "예약 취소해줘"): a tool
 * with side effects that performs none of them is dropped; a tool without side effects stays only when some
 * part of the question asks to be shown something; and an action no chosen tool performs is given the
 * tool that performs it (among the tools taking a value the question gives in their shape, if any of them
 * does; else the likeliest, if it has some evidence). An action no tool performs is answered by no tool.
 * A question requesting no action gets no tool that changes things when its every part asks to be shown
 * something, and a question that names a value in some tools' shape and requests nothing is for the likeliest
 * of those tools that changes nothing.
 */
export function applyRequestedActions(
  clauses: string[],
  tools: ToolDefinition[],
  chosen: ToolDefinition[],
  scores: Record<string, number>,
  /** Tools taking a value the question gives in the shape of their input ("AB-123456"). */
  shapedOwners: ReadonlySet<string> = new Set(),
  /** Per part (same order as `clauses`, when there are several), each tool's score on that part alone. */
  clauseScores: ReadonlyArray<Record<string, number>> = [],
): ToolDefinition[] {
  const readVerbs = readVerbsOf(tools);
  const request = questionRequest(clauses, readVerbs);
  const requests = clauses.map((clause) => clauseRequest(clause, readVerbs));
  /** A tool's score for the parts matching `asks`: the whole question's, or a part's own if higher. */
  const scoreIn = (tool: ToolDefinition, asks: (part: ClauseRequest) => boolean) =>
    Math.max(
      scores[tool.name] ?? 0,
      ...clauseScores.map((part, i) => (requests[i] && asks(requests[i]) ? (part[tool.name] ?? 0) : 0)),
    );
  const likeliest = (candidates: ToolDefinition[]) =>
    [...candidates].sort((a, b) => (scores[b.name] ?? 0) - (scores[a.name] ?? 0))[0] as
      ToolDefinition | undefined;
  const reads = (tool: ToolDefinition) => tool.has_side_effects === false;
  if (!request.write.size) {
    const asksOnly = !request.unknownWrite && request.readOnly;
    const result = asksOnly ? chosen.filter(reads) : chosen;
    if (result.length || request.unknownWrite) return result;
    const owner = likeliest(tools.filter((tool) => shapedOwners.has(tool.name) && reads(tool)));
    if (owner) return [owner];
    if (!asksOnly || !chosen.length) return result;
    // What the question asks to be shown is then the likeliest tool that shows things.
    const best = likeliest(tools.filter(reads));
    return best && (scores[best.name] ?? 0) >= READER_FLOOR ? [best] : [];
  }
  const performs = (tool: ToolDefinition, id: string) => toolActions(tool).has(id);
  const result = chosen.filter((tool) =>
    tool.has_side_effects !== false
      ? request.unknownWrite || [...request.write].some((id) => performs(tool, id))
      : request.read,
  );
  for (const id of request.write) {
    if (result.some((tool) => performs(tool, id))) continue;
    // The performer is judged on the part requesting the action as well as on the whole question.
    const score = (tool: ToolDefinition) => scoreIn(tool, (part) => part.write.has(id));
    const byScore = (candidates: ToolDefinition[]) =>
      [...candidates].sort((a, b) => score(b) - score(a))[0] as ToolDefinition | undefined;
    const performers = tools.filter((tool) => performs(tool, id));
    const shaped = byScore(performers.filter((tool) => shapedOwners.has(tool.name)));
    const best = shaped ?? byScore(performers);
    if (best && (shaped || score(best) >= PERFORMER_FLOOR)) result.push(best);
  }
  return result;
}

/**
 * The parts of a multi-part question that ask to be shown something, after the requested actions and the
 * lookups are settled (a lookup added for a record answers the part finding it):
 * - beside requested actions ("is a suite free? if so upgrade him", "find her booking, then cancel it"), when
 *   no chosen tool shows things: the tool that shows things taking a value the part gives in its input's shape
 *   ("AB-123456 어디 있는지 확인하고 ..."), else the one that shows things best on the part's own words, if
 *   clearly (above the next one and from READ_PART_FLOOR);
 * - a part asking about a value in some readers' input shape that no chosen tool takes ("AB-123456 위치
 *   확인하고 ... 동선도 보여줘"): the likeliest of those readers.
 */
export function answerParts(
  clauses: string[],
  tools: ToolDefinition[],
  chosen: ToolDefinition[],
  /** Per part (same order as `clauses`, when there are several), each tool's score on that part alone. */
  clauseScores: ReadonlyArray<Record<string, number>>,
  /** Per part, the tools taking a value that part gives in the shape of their input. */
  partOwners: ReadonlyArray<ReadonlySet<string>>,
): ToolDefinition[] {
  if (clauseScores.length < 2) return chosen;
  const readVerbs = readVerbsOf(tools);
  const requests = clauses.map((clause) => clauseRequest(clause, readVerbs));
  const request = questionRequest(clauses, readVerbs);
  const reads = (tool: ToolDefinition) => tool.has_side_effects === false;
  const result = [...chosen];
  const byPart = (i: number, candidates: ToolDefinition[]) =>
    [...candidates].sort((a, b) => (clauseScores[i][b.name] ?? 0) - (clauseScores[i][a.name] ?? 0));
  if (request.write.size && !result.some(reads))
    requests.forEach((part, i) => {
      if (!part.read || !clauseScores[i]) return;
      const [shaped] = byPart(
        i,
        tools.filter((tool) => reads(tool) && partOwners[i]?.has(tool.name)),
      );
      const [best, next] = byPart(i, tools.filter(reads));
      const score = (tool: ToolDefinition | undefined) => (tool ? (clauseScores[i][tool.name] ?? 0) : 0);
      const answer =
        shaped ?? (score(best) >= READ_PART_FLOOR && score(best) > score(next) ? best : undefined);
      if (answer && !result.includes(answer)) result.push(answer);
    });
  if (request.write.size || result.length)
    requests.forEach((part, i) => {
      const owners = partOwners[i];
      if (!clauseScores[i] || !part.read || !owners?.size || result.some((tool) => owners.has(tool.name)))
        return;
      const [best] = byPart(
        i,
        tools.filter((tool) => reads(tool) && owners.has(tool.name)),
      );
      if (best) result.push(best);
    });
  return result;
}
