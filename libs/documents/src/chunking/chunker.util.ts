import { createHash } from 'node:crypto';
import { ChunkType, TableData } from '../documents.types';
import { DocumentBudgetError } from '../documents.exception';
import { ParsedBlock } from '../parsing/parsed-block';

export interface ChunkingOptions {
  targetChars: number;
  overlapChars: number;
  /** Chunks one document may produce (DOCUMENTS_MAX_CHUNKS); chunking stops with a budget error past it. */
  maxChunks?: number;
}

export interface ChunkDraft {
  chunkIndex: number;
  text: string;
  chunkType: ChunkType;
  pageNumber: number | null;
  slideNumber: number | null;
  positionInDoc: number;
  tableData: TableData | null;
  /** sha256 of the text: what the embedding depends on, so equal hashes can share a vector. */
  sourceHash: string;
}

interface Unit {
  kind: ParsedBlock['kind'];
  text: string;
  page: number | null;
  slide: number | null;
  position: number;
  /** Heading level, for heading units. */
  level?: number;
}

export const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** Splits an over-long text at sentence, then word, boundaries into pieces of at most `max` chars. */
export function splitLongText(text: string, max: number, overlap: number): string[] {
  const sentences = text.match(/[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)\s*/gu) ?? [text];
  const atoms: string[] = [];
  for (const sentence of sentences) {
    if (sentence.length <= max) atoms.push(sentence);
    else {
      let current = '';
      for (const word of sentence.split(/(?<=\s)/u)) {
        if (current.length + word.length > max && current) {
          atoms.push(current);
          current = '';
        }
        // A single "word" longer than max (e.g. a hash or a URL run) is cut hard.
        for (let i = 0; i < word.length; i += max) {
          const part = word.slice(i, i + max);
          if (current.length + part.length > max && current) {
            atoms.push(current);
            current = '';
          }
          current += part;
        }
      }
      if (current) atoms.push(current);
    }
  }
  const pieces: string[] = [];
  let piece: string[] = [];
  let length = 0;
  for (const atom of atoms) {
    if (length + atom.length > max && piece.length > 0) {
      pieces.push(piece.join('').trim());
      const carried: string[] = [];
      let carriedLength = 0;
      for (let i = piece.length - 1; i >= 0; i--) {
        if (carriedLength + piece[i].length > overlap || carriedLength + piece[i].length + atom.length > max)
          break;
        carried.unshift(piece[i]);
        carriedLength += piece[i].length;
      }
      piece = carried;
      length = carriedLength;
    }
    piece.push(atom);
    length += atom.length;
  }
  if (piece.length > 0) pieces.push(piece.join('').trim());
  return pieces.filter(Boolean);
}

function rowLine(header: string[], row: string[]): string {
  return row
    .map((value, i) => (header[i] ? `${header[i]}: ${value}` : value))
    .filter((cell) => cell.trim() !== '' && !cell.endsWith(': '))
    .join(' | ');
}

/**
 * Structure-aware chunking: a heading starts a new chunk, a page or slide change ends one,
 * paragraphs and list items are packed up to the target size with a sentence-aligned overlap,
 * and tables are split by rows with the header repeated in every piece.
 */
export function chunkBlocks(blocks: ParsedBlock[], options: ChunkingOptions): ChunkDraft[] {
  const target = options.targetChars;
  const overlap = Math.min(options.overlapChars, Math.floor(target / 2));
  const drafts: Omit<ChunkDraft, 'chunkIndex' | 'sourceHash'>[] = [];
  const maxChunks = options.maxChunks ?? Number.POSITIVE_INFINITY;
  const push = (draft: Omit<ChunkDraft, 'chunkIndex' | 'sourceHash'>): void => {
    if (drafts.length >= maxChunks)
      throw new DocumentBudgetError(
        { key: 'DOCUMENTS_MAX_CHUNKS', limit: maxChunks, observed: drafts.length + 1 },
        'The number of chunks of the document',
      );
    drafts.push(draft);
  };
  const headings: string[] = [];
  let buffer: Unit[] = [];
  let position = 0;

  const context = (): string => headings.filter(Boolean).join(' > ');
  /**
   * Every chunk carries the headings above it (a contextual header): a chunk that opens with its
   * own heading gets that heading's ancestors, any other chunk the whole path. Without it a
   * document title and section names would be searchable only in the chunk that holds them.
   */
  const headerFor = (first: Unit): string =>
    first.kind === 'heading'
      ? headings
          .slice(0, (first.level ?? 1) - 1)
          .filter(Boolean)
          .join(' > ')
      : context();
  const emit = (units: Unit[]): void => {
    const text = units.map((u) => u.text).join('\n');
    const header = headerFor(units[0]);
    const prefix = header ? `${header}\n` : '';
    const kinds = new Set(units.filter((u) => u.kind !== 'heading').map((u) => u.kind));
    const images = kinds.has('image');
    const chunkType: ChunkType = images ? (kinds.size === 1 ? 'image' : 'mixed') : 'text';
    push({
      text: `${prefix}${text}`,
      chunkType,
      pageNumber: units[0].page,
      slideNumber: units[0].slide,
      positionInDoc: units[0].position,
      tableData: null,
    });
  };
  const bufferLength = (): number => buffer.reduce((sum, u) => sum + u.text.length + 1, 0);
  /** A buffer holding only headings is kept for the next chunk, except where nothing can follow it. */
  const flush = (carryOverlap: boolean, final = false): void => {
    if (buffer.length === 0 || (!final && buffer.every((u) => u.kind === 'heading'))) return;
    emit(buffer);
    const carried: Unit[] = [];
    if (carryOverlap && overlap > 0) {
      let length = 0;
      for (let i = buffer.length - 1; i >= 0; i--) {
        const unit = buffer[i];
        if (unit.kind === 'heading' || length + unit.text.length > overlap) break;
        carried.unshift(unit);
        length += unit.text.length + 1;
      }
    }
    buffer = carried;
  };

  for (const block of blocks) {
    const page = block.page ?? null;
    const slide = block.slide ?? null;
    const last = buffer[buffer.length - 1];
    if (last && (last.page !== page || last.slide !== slide)) {
      flush(false, true);
      buffer = [];
    }
    if (block.kind === 'table') {
      flush(false);
      buffer = [];
      const title = block.caption ?? context();
      const headerLine = block.header.join(' | ');
      const lines = block.rows.map((row) => rowLine(block.header, row));
      const base = `${title ? `${title}\n` : ''}${headerLine}`;
      let start = 0;
      while (start < Math.max(lines.length, 1)) {
        let end = start;
        let length = base.length;
        while (end < lines.length && (end === start || length + lines[end].length + 1 <= target)) {
          length += lines[end].length + 1;
          end++;
        }
        push({
          text: [base, ...lines.slice(start, end)].join('\n'),
          chunkType: 'table',
          pageNumber: page,
          slideNumber: slide,
          positionInDoc: position,
          tableData: {
            header: block.header,
            rows: block.rows.slice(start, end),
            row_range: [start + 1, Math.max(start + 1, end)],
            ...(block.caption ? { sheet: block.caption } : {}),
          },
        });
        if (end === start) break;
        start = end;
      }
      position += base.length + lines.join('\n').length + 1;
      continue;
    }
    const text = block.text;
    if (block.kind === 'heading') {
      flush(false);
      headings.length = Math.max(0, block.level - 1);
      headings[block.level - 1] = text;
      buffer = [{ kind: 'heading', text, page, slide, position, level: block.level }];
      position += text.length + 1;
      continue;
    }
    if (text.length > target) {
      flush(true);
      const pieces = splitLongText(
        text,
        target - Math.min(context().length + 1, Math.floor(target / 4)),
        overlap,
      );
      const leading = buffer.filter((u) => u.kind === 'heading');
      buffer = [];
      pieces.forEach((piece, i) =>
        emit([...(i === 0 ? leading : []), { kind: block.kind, text: piece, page, slide, position }]),
      );
      position += text.length + 1;
      continue;
    }
    if (bufferLength() + text.length > target) flush(true);
    buffer.push({ kind: block.kind, text, page, slide, position });
    position += text.length + 1;
  }
  flush(false, true);
  return drafts.map((draft, chunkIndex) => ({ ...draft, chunkIndex, sourceHash: sha256(draft.text) }));
}
