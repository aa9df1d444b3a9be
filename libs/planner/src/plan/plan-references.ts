import { REF_KEY } from '@app/tools';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const BARE_STEP_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Plans use the stage reference syntax, `{"$ref": "<step>.data.<path>"}` (see the tools lib's
 * stage-plan.util). The earlier plan form `{"$ref": "<step>", "path": "<dot path into its data>"}`
 * is still accepted from models and clients and rewritten here: `{"$ref": "s1", "path": "items.id"}`
 * becomes `{"$ref": "s1.data.items.id"}` (a field of a list reads every element's field).
 */
export function toStageReferences(value: unknown): unknown {
  if (isRecord(value) && typeof value[REF_KEY] === 'string') {
    const ref = value[REF_KEY];
    const legacyPath = typeof value.path === 'string' ? value.path.trim() : undefined;
    const keys = Object.keys(value).filter((k) => k !== REF_KEY && k !== 'path');
    if (keys.length === 0 && BARE_STEP_ID.test(ref) && (legacyPath !== undefined || !('path' in value))) {
      const path = legacyPath ? `.${legacyPath.replace(/^\.+/, '')}` : '';
      return { [REF_KEY]: `${ref}.data${path}` };
    }
    return value;
  }
  if (Array.isArray(value)) return value.map(toStageReferences);
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toStageReferences(v)]));
  return value;
}
