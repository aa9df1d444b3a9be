import { normalizeText } from '../knowledge/text-match.util';
import type { PropertyInfo } from '../plan/schema-introspection.util';

/**
 * People the question names, for a tool's name inputs ("guest_name", "patient: name or chart no", "담당자
 * 이름"): a Korean name (a surname and a given name) beside a title or a role ("김도윤 씨", "정민호님",
 * "보호자 정미경님", "박하은 환자"), an English name after a title ("Ms. Garcia", "Dr. Emily Cho") or two
 * capitalised words the tenant's vocabulary does not know ("Sarah Miller's", "find John Park"), or any
 * name introduced as one ("나비라는", "Williams 라는 분"). Language knowledge only: Korean surnames,
 * honorifics and titles.
 */
export interface NameMention {
  name: string;
  /** The title or role word beside it ("환자", "원장", "dr"), lower-cased; '' when none. */
  role: string;
}

const SURNAMES = new Set([
  ...'김이박최정강조윤장임한오서신권황안송류유전홍고문양손배백허남심노하곽성차주우구민진나지엄채원천방공현함변염여추도소석선설마길연위표명기반왕금옥육인맹제모탁국어은편용예경봉사부가복태목형피두감음빈동온호범좌팽승간상시갈단견당화창옹순',
]);
/** Titles and roles said after (or before) a Korean name; 님 and 씨 are honorifics of any name. */
const KO_ROLE =
  /^(?:고객|손님|환자|기사|원장|선생|매니저|보호자|직원|회원|학생|교수|대리|과장|팀장|실장|부장|사장|주임|사원|간호사|수의사|의사|선수|강사|코치|씨|님)(?:님|분)?(?:이|가|은|는|을|를|의|께|께서|한테|에게|도)?$/;
/** Words of three syllables that start like a surname and are not names ("이번주", "오후에"). */
const NOT_A_NAME = /^(?:이번|지난|다음|저번|올해|작년|이거|이건|그거|저거)|(?:주|달|해|에|서|께)$/;
const EN_TITLE = /\b([Mm]rs?|[Mm]s|[Mm]iss|[Mm]x|[Dd]r|[Pp]rof)\.?\s+([A-Z][a-z]+(?:[ -][A-Z][a-z]+)?)/g;
const EN_PAIR = /(?<![A-Za-z])([A-Z][a-z]+)\s+([A-Z][a-z]+)(?![A-Za-z])/g;
/** "X라는", "X이라는 분", "X란": a name introduced as such. */
const CALLED = /(?<![가-힣A-Za-z_])([가-힣]{1,4}?|[A-Z][a-z]+)\s?(?:이라는|라는|이란|란)\s/g;
const MONTHS_AND_DAYS =
  /^(?:january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|i|the|a|an|my|our|your|please|pls|can|could|would|will|is|are|do|does|did|find|check|show|book|put|get|give|list|pull|look|see|tell|add|open|make|send|what|which|who|when|where|how|any|all|for|from|to|at|on|in|and|or|but|if|then|also|hi|hello|hey|thanks|thank|ok|okay|yes|no)$/;

function isKoreanName(word: string): boolean {
  return word.length === 3 && SURNAMES.has(word[0]) && !NOT_A_NAME.test(word) && !KO_ROLE.test(word);
}

/** The people a question names, in order, each once. `known`: words of the tenant's vocabulary (not names). */
export function personNames(
  query: string,
  known: (word: string) => boolean = () => false,
  /** Korean words the tenant's name inputs describe people by ("수강생 이름"): roles besides the usual titles. */
  roles: ReadonlySet<string> = new Set(),
): NameMention[] {
  const text = query.normalize('NFC');
  const found: NameMention[] = [];
  const push = (name: string, role: string) => {
    if (!found.some((f) => f.name === name)) found.push({ name, role: normalizeText(role) });
  };
  // Words, each with whether punctuation ends it (a name and a role are read within one phrase).
  const tokens = text.split(/\s+/).filter(Boolean);
  const words = tokens.map((t) => t.replace(/^[("'“‘[]+|[)"'”’\],.;:!?…]+$/g, ''));
  const ended = tokens.map((t) => /[,.;:!?…)\]]$/.test(t));
  /** A title or role word, without its particle ("원장님이" -> "원장님"), or ''. */
  const roleOf = (word: string | undefined) => {
    if (!word) return '';
    const bare = word.replace(/(?:이|가|은|는|을|를|의|께|께서|한테|에게|도)$/, '');
    if (KO_ROLE.test(word)) return bare.length > 2 ? bare.replace(/(?:님|분)$/, '') : bare;
    return roles.has(bare) ? bare : '';
  };
  words.forEach((word, i) => {
    const honorific = /^([가-힣]{3})(님|씨)(?:이|가|은|는|을|를|의|께|께서|한테|에게|도|댁)?$/.exec(word);
    // A role before the name only as its title, without a particle ("보호자 정미경님", not "손님이 한라산").
    const before =
      i > 0 &&
      !ended[i - 1] &&
      KO_ROLE.test(words[i - 1]) &&
      roleOf(words[i - 1]) === words[i - 1].replace(/(?:님|분)$/, '')
        ? roleOf(words[i - 1])
        : '';
    const after = ended[i] ? '' : roleOf(words[i + 1]);
    if (honorific && isKoreanName(honorific[1])) push(honorific[1], before || honorific[2]);
    else if (isKoreanName(word) && !known(word) && after) push(word, after);
  });
  for (const m of text.matchAll(CALLED))
    // Not a verb told ("잡으라는", "하라는"): a name ends in no verb stem.
    if (!known(normalizeText(m[1])) && !/[으하되고지]$/.test(m[1])) push(m[1], '');
  for (const m of text.matchAll(EN_TITLE)) push(m[2], m[1]);
  for (const m of text.matchAll(EN_PAIR)) {
    const [first, last] = [normalizeText(m[1]), normalizeText(m[2])];
    if ([first, last].some((w) => MONTHS_AND_DAYS.test(w) || known(w))) continue;
    // Not the second word of a title's name already read ("Dr. Emily Cho").
    if (found.some((f) => f.name.includes(`${m[1]} ${m[2]}`) || f.name === m[2])) continue;
    if (/\b(?:mr|mrs|ms|miss|mx|dr|prof)\.?\s*$/i.test(text.slice(0, m.index))) continue;
    push(`${m[1]} ${m[2]}`, '');
  }
  return found;
}

/** Organisations, not people ("company_name", "상호"): a person's name is not theirs. */
const ORGANISATION =
  /company|business|organi[sz]ation|firm|vendor|store|shop|상호|업체|회사|거래처|법인|단체/;
const NAME_WORD = /(?:^|_)name$|\bnames?\b|이름|성함|성명|고객명|예약자명|담당자/;
/** Titles read as the words describing the people they address. */
const TITLE_WORDS: Record<string, RegExp> = {
  dr: /\bdr\b|doctor|의사|원장|선생/,
  prof: /professor|교수/,
};

const propertyText = (property: PropertyInfo) =>
  normalizeText(
    `${property.name.replace(/_/g, ' ')} ${typeof property.schema.description === 'string' ? property.schema.description : ''}`,
  );

/** Whether a string input takes a person's name (its name or description says so; no organisation's). */
export function isNameProperty(property: PropertyInfo): boolean {
  if (property.type !== 'string' || property.enumValues) return false;
  const text = propertyText(property);
  return NAME_WORD.test(text) && !ORGANISATION.test(text);
}

/** Whether a mention's role is what the property's words describe ("환자" for "환자 이름", Dr. for "원장"). */
function roleFits(role: string, property: PropertyInfo): boolean {
  if (!role || role === '님' || role === '씨') return false;
  const text = propertyText(property);
  return TITLE_WORDS[role]?.test(text) ?? text.includes(role);
}

/**
 * The name a tool's name input takes: the person whose role the input describes; else, when the tool
 * takes one person's name and the question names one person (or the input's description gives the name
 * among its examples), that name.
 */
export function nameFor(
  property: PropertyInfo,
  nameProperties: PropertyInfo[],
  mentions: NameMention[],
): string | null {
  if (!mentions.length) return null;
  const fitting = mentions.filter((m) => roleFits(m.role, property));
  if (fitting.length === 1) return fitting[0].name;
  const description = typeof property.schema.description === 'string' ? property.schema.description : '';
  const example = mentions.filter((m) =>
    new RegExp(`(?:^|[\\s(,/])${m.name}(?:[\\s),/]|$)`).test(description),
  );
  if (example.length === 1) return example[0].name;
  // Mentions whose role some other name input describes are that input's.
  const free = mentions.filter((m) => !nameProperties.some((p) => p !== property && roleFits(m.role, p)));
  if (nameProperties.length === 1 && free.length === 1) return free[0].name;
  return null;
}

/** Whether a string input takes an organisation's name ("company_name", "상호"). */
export function isOrganisationProperty(property: PropertyInfo): boolean {
  if (property.type !== 'string' || property.enumValues) return false;
  const text = propertyText(property);
  return ORGANISATION.test(text) && /(?:^|_|\s)name\b|이름|명칭|상호/.test(text);
}

/** Korean words for a business one deals with, after its name ("그린팜 거래처", "한결 업체"). */
const KO_ORGANISATION = /([\uac00-\ud7a3A-Za-z][\uac00-\ud7a3A-Za-z0-9]+)\s?(?:거래처|업체|회사|상사|법인)/;

/**
 * The organisation a question names: a Korean name before a word for a business ("그린팜 거래처"), else two
 * capitalised words no title or role marks as a person's ("Hangyeol Foods").
 */
export function organisationIn(query: string, mentions: NameMention[]): string | null {
  const korean = KO_ORGANISATION.exec(query.normalize('NFC'));
  if (korean && !/\d/.test(korean[1])) return korean[1];
  const pairs = mentions.filter((m) => !m.role && / /.test(m.name) && !/[\uac00-\ud7a3]/.test(m.name));
  return pairs.length === 1 ? pairs[0].name : null;
}
