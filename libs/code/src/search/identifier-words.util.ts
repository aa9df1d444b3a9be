/**
 * Splits code identifiers into words for keyword search: `getUserPosts` -> `get user posts`,
 * `HTTPError` -> `http error`, `parse_json_body` -> `parse json body`. Only identifiers that split
 * into more than one word are returned, once each.
 */
export function identifierWords(text: string): string[] {
  const seen = new Set<string>();
  const phrases: string[] = [];
  for (const match of text.matchAll(/[A-Za-z_$][A-Za-z0-9_$]*/g)) {
    const words = splitIdentifier(match[0]);
    if (words.length < 2) continue;
    const phrase = words.join(' ');
    if (seen.has(phrase)) continue;
    seen.add(phrase);
    phrases.push(phrase);
  }
  return phrases;
}

export function splitIdentifier(identifier: string): string[] {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[_$\s]+/)
    .map((word) => word.toLowerCase())
    .filter(Boolean);
}
