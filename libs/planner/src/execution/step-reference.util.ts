import { isStepReference } from '../plan/plan-validator';

/** Follows a dot path; across arrays it maps and flattens (`items.ci_id` -> every item's ci_id). */
export function readPath(value: unknown, path: string | undefined): unknown {
  if (!path) return value;
  let current: unknown[] = [value];
  let spread = false;
  for (const segment of path.split('.').filter(Boolean)) {
    const next: unknown[] = [];
    for (const item of current) {
      if (Array.isArray(item)) {
        spread = true;
        for (const element of item) {
          const field = (element as Record<string, unknown> | null)?.[segment];
          if (field !== undefined) next.push(field);
        }
      } else if (item && typeof item === 'object') {
        const field = (item as Record<string, unknown>)[segment];
        if (field !== undefined) next.push(field);
      }
    }
    current = next;
  }
  if (spread) return current.flat();
  return current[0];
}

/** A copy of the parameters with every `{ $ref, path }` replaced by the referenced output. */
export function resolveReferences(value: unknown, outputs: ReadonlyMap<string, unknown>): unknown {
  if (isStepReference(value)) return readPath(outputs.get(value.$ref), value.path);
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, outputs));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, resolveReferences(item, outputs)]),
    );
  }
  return value;
}
