import { DocumentBudgetError } from '../document-errors';

/** How much one document may expand to while it is parsed (DOCUMENTS_PARSE_* config keys). */
export interface ParseBudget {
  /** Entries a zip (docx, pptx, xlsx) may list in its central directory. */
  maxZipEntries: number;
  /** Bytes one zip entry or one PDF stream may inflate to. */
  maxEntryBytes: number;
  /** Bytes all inflated entries or streams of one document may add up to. */
  maxExpandedBytes: number;
  /** Expanded / compressed size one entry or stream may reach once past RATIO_FLOOR_BYTES. */
  maxRatio: number;
  /** Pages a PDF may have. */
  maxPdfPages: number;
  /** Characters of text the parser may extract from one document. */
  maxTextChars: number;
}

export const DEFAULT_PARSE_BUDGET: ParseBudget = {
  maxZipEntries: 10_000,
  maxEntryBytes: 50 * 1024 * 1024,
  maxExpandedBytes: 100 * 1024 * 1024,
  maxRatio: 200,
  maxPdfPages: 5_000,
  maxTextChars: 20_000_000,
};

/**
 * Small entries compress far past any sane ratio (1 KB of spaces deflates to a dozen bytes), and
 * cost nothing; the ratio only matters once an entry has expanded past this.
 */
export const RATIO_FLOOR_BYTES = 1024 * 1024;

export const BUDGET_KEYS: Record<keyof ParseBudget, string> = {
  maxZipEntries: 'DOCUMENTS_PARSE_MAX_ZIP_ENTRIES',
  maxEntryBytes: 'DOCUMENTS_PARSE_MAX_ENTRY_BYTES',
  maxExpandedBytes: 'DOCUMENTS_PARSE_MAX_EXPANDED_BYTES',
  maxRatio: 'DOCUMENTS_PARSE_MAX_RATIO',
  maxPdfPages: 'DOCUMENTS_PARSE_MAX_PDF_PAGES',
  maxTextChars: 'DOCUMENTS_PARSE_MAX_TEXT_CHARS',
};

export function overBudget(
  budget: ParseBudget,
  key: keyof ParseBudget,
  observed: number,
  what: string,
): DocumentBudgetError {
  return new DocumentBudgetError({ key: BUDGET_KEYS[key], limit: budget[key], observed }, what);
}

/**
 * Counts the bytes one document's parser actually inflates, entry by entry (or stream by stream)
 * and in total, and stops the parse the moment a limit is passed: declared sizes can lie.
 */
export class ExpansionMeter {
  private total = 0;

  constructor(readonly budget: ParseBudget) {}

  /** A counter for one entry or stream of `compressedBytes`; call it with each inflated piece's size. */
  entry(name: string, compressedBytes: number): (bytes: number) => void {
    let expanded = 0;
    return (bytes: number) => {
      expanded += bytes;
      this.total += bytes;
      if (expanded > this.budget.maxEntryBytes)
        throw overBudget(this.budget, 'maxEntryBytes', expanded, `The expanded size of ${name}`);
      if (this.total > this.budget.maxExpandedBytes)
        throw overBudget(this.budget, 'maxExpandedBytes', this.total, 'The expanded size of the document');
      const ratio = Math.floor(expanded / Math.max(compressedBytes, 1));
      if (expanded > RATIO_FLOOR_BYTES && ratio > this.budget.maxRatio)
        throw overBudget(this.budget, 'maxRatio', ratio, `The compression ratio of ${name}`);
    };
  }
}
