interface Located {
  page?: number;
  slide?: number;
}

export type ParsedBlock = Located &
  (
    | { kind: 'heading'; level: number; text: string }
    | { kind: 'paragraph' | 'list_item' | 'code'; text: string }
    | { kind: 'image'; text: string }
    | { kind: 'table'; header: string[]; rows: string[][]; caption?: string }
  );

export const clean = (text: string): string => text.replace(/\s+/g, ' ').trim();
