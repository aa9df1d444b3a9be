import type { ToolDefinition } from '@app/tools';
import { schemaProperties, type PropertyInfo } from '../plan/schema-introspection.util';
import { fitsShape, isDistinctiveShape } from './slot-values';

/** Words of an identifier input's name that say it is an identifier, not what it identifies. */
const ID_WORDS = /^(?:no|nr|num|number|id|ids|code|key|ref|reference)$/;

/** What an identifier input identifies, by the words of its name ("patient_chart_no": patient, chart). */
function identifiedWords(property: PropertyInfo): string[] {
  return property.name
    .toLowerCase()
    .split(/[_\s-]+/)
    .filter((word) => word.length >= 3 && !ID_WORDS.test(word));
}

/** The name and the first sentence of the description of a tool, lower-cased (what it is for). */
function headline(tool: ToolDefinition): string {
  const first = tool.description.split(/[.;。\n]\s|\s[—–]\s|\s-\s/)[0] ?? '';
  return `${tool.name.replace(/_/g, ' ')} ${first}`.toLowerCase();
}

/**
 * The side-effect-free tool that finds the record a required identifier names, for a chosen tool the
 * question gives no such identifier to ("find John Park and book him a cleaning", "이서준 환자 ... 예약 잡아줘":
 * the booking tool needs the patient's chart number): a tool taking the same identifier as one optional way of
 * searching among others, or whose name or first sentence names what the identifier identifies. Read from
 * the schemas as published (the identifier's `pattern`, its name's words); no tool names.
 */
export function lookupsFirst(
  tools: ToolDefinition[],
  chosen: ToolDefinition[],
  /** The values the question gives in some tool input's shape. */
  shapedValues: string[],
): ToolDefinition[] {
  const added: ToolDefinition[] = [];
  for (const tool of chosen) {
    for (const property of schemaProperties(tool.input_schema)) {
      if (!property.required || property.type !== 'string' || !isDistinctiveShape(property)) continue;
      if (shapedValues.some((value) => fitsShape(value, property))) continue;
      const pattern = property.schema.pattern;
      const words = identifiedWords(property);
      const candidates = tools
        .filter((other) => other !== tool && other.has_side_effects === false)
        .map((other) => {
          const properties = schemaProperties(other.input_schema);
          const same = properties.find(
            (p) => typeof pattern === 'string' && p.schema.pattern === pattern && !p.required,
          );
          const text = headline(other);
          const named = words.filter((word) => text.includes(word)).length;
          return { other, score: named * 2 + (same ? 1 : 0) };
        })
        .filter((c) => c.score > 0)
        .sort((a, b) => b.score - a.score);
      const best = candidates[0];
      // Two tools as likely to be the record's lookup: neither is added.
      if (!best || (candidates[1] && candidates[1].score === best.score)) continue;
      if (!chosen.includes(best.other) && !added.includes(best.other)) added.push(best.other);
    }
  }
  return [...added, ...chosen];
}
