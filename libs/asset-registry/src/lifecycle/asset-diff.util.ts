import { isDeepStrictEqual } from 'node:util';
import type { AssetDiffEntry } from '../asset.types';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Arrays of named objects (catalog tables, columns, screen components) are matched by name, not index. */
function keyOf(items: unknown[]): 'name' | 'id' | null {
  for (const key of ['name', 'id'] as const) {
    const keys = items.map((i) => (isObject(i) && typeof i[key] === 'string' ? i[key] : null));
    if (keys.length > 0 && keys.every((k) => k !== null) && new Set(keys).size === keys.length) return key;
  }
  return null;
}

function diffArrays(before: unknown[], after: unknown[], path: string, out: AssetDiffEntry[]): void {
  const key = keyOf(before) && keyOf(after) && keyOf(before) === keyOf(after) ? keyOf(before) : null;
  if (key) {
    const byKey = (items: unknown[]) =>
      new Map(items.map((i) => [(i as Record<string, string>)[key], i] as const));
    const oldItems = byKey(before);
    const newItems = byKey(after);
    for (const [k, value] of oldItems) {
      if (!newItems.has(k)) out.push({ path: `${path}[${k}]`, change: 'removed', from: value });
      else diffValues(value, newItems.get(k), `${path}[${k}]`, out);
    }
    for (const [k, value] of newItems) {
      if (!oldItems.has(k)) out.push({ path: `${path}[${k}]`, change: 'added', to: value });
    }
    return;
  }
  const common = Math.min(before.length, after.length);
  for (let i = 0; i < common; i++) diffValues(before[i], after[i], `${path}[${i}]`, out);
  for (let i = common; i < before.length; i++)
    out.push({ path: `${path}[${i}]`, change: 'removed', from: before[i] });
  for (let i = common; i < after.length; i++)
    out.push({ path: `${path}[${i}]`, change: 'added', to: after[i] });
}

function diffValues(before: unknown, after: unknown, path: string, out: AssetDiffEntry[]): void {
  if (isDeepStrictEqual(before, after)) return;
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const child = path ? `${path}.${key}` : key;
      if (!(key in after) || after[key] === undefined) {
        if (before[key] !== undefined) out.push({ path: child, change: 'removed', from: before[key] });
      } else if (!(key in before) || before[key] === undefined) {
        out.push({ path: child, change: 'added', to: after[key] });
      } else {
        diffValues(before[key], after[key], child, out);
      }
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    diffArrays(before, after, path, out);
    return;
  }
  out.push({ path: path || '(root)', change: 'changed', from: before, to: after });
}

/** Field-level differences between two asset states, with dotted paths (`tool_config.url`). */
export function diffAssets(before: unknown, after: unknown): AssetDiffEntry[] {
  const out: AssetDiffEntry[] = [];
  diffValues(before, after, '', out);
  return out;
}
