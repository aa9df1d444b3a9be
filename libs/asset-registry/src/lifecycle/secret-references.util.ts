import type { AssetSnapshot } from '../asset.types';

const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The secret references an asset will resolve when it runs: an http tool's `secret_ref`, a source's credentials. */
export function secretReferencesOf(snapshot: AssetSnapshot): string[] {
  const refs: unknown[] = [];
  if (snapshot.asset_type === 'tool') refs.push(asRecord(snapshot.tool_config).secret_ref);
  if (snapshot.asset_type === 'source') {
    const connection = asRecord(asRecord(snapshot.content).connection);
    refs.push(connection.url_ref, connection.password_ref);
  }
  return refs.filter((ref): ref is string => typeof ref === 'string' && ref.length > 0);
}
