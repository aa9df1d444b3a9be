/** A piece of evidence the chat may cite: a document chunk or a web result. */
export type Passage =
  | {
      kind: 'document';
      document_id: string;
      document_name: string;
      chunk_id: string;
      chunk_index: number;
      page: number | null;
      score: number;
      text: string;
    }
  | { kind: 'web'; url: string; title: string; score: number; text: string };

export function passageKey(passage: Passage): string {
  return passage.kind === 'document' ? `doc:${passage.chunk_id}` : `web:${passage.url}`;
}

export function passageLabel(passage: Passage): string {
  if (passage.kind === 'web') return `${passage.title} (${passage.url})`;
  const where = passage.page !== null ? `p.${passage.page}` : `chunk ${passage.chunk_index}`;
  return `${passage.document_name}, ${where}`;
}
