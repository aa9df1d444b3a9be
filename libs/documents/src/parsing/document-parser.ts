import { DocumentFormat } from '../documents.types';
import { DocumentProcessingError, DocumentsExceptionCode } from '../document-errors';
import { DEFAULT_PARSE_BUDGET, ExpansionMeter, overBudget, ParseBudget } from './parse-budget';
import { clean, ParsedBlock } from './parsed-block';

/*
 * Each format's parser is loaded on its first document, not at start-up: together (mammoth, markdown-it,
 * node-html-parser, csv-parse, fast-xml-parser, fflate and ours) they were ~0.5 s of a server's start on
 * a busy machine, and a server may never see most formats.
 */
const loadCsv = () => import('csv-parse/sync');
const loadHtml = () => import('./html-blocks.util');
const loadMarkdown = () => import('./markdown-blocks.util');
const loadOffice = () => import('./office-blocks.util');
const loadPdfBudget = () => import('./pdf-budget.util');
const loadXlsx = () => import('./xlsx-blocks.util');

const CFB_MAGIC = 'd0cf11e0a1b11ae1';
const OOXML_FORMATS = new Set<DocumentFormat>(['docx', 'pptx', 'xlsx']);

function decodeUtf8(buffer: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(buffer);
  } catch {
    throw new DocumentProcessingError(
      DocumentsExceptionCode.DOCUMENT_CORRUPT,
      'The file is not valid UTF-8 text.',
      false,
    );
  }
}

function plainTextToBlocks(text: string): ParsedBlock[] {
  return text
    .split(/\r?\n\s*\r?\n/)
    .map((paragraph) => clean(paragraph))
    .filter(Boolean)
    .map((paragraph) => ({ kind: 'paragraph' as const, text: paragraph }));
}

async function csvToBlocks(text: string): Promise<ParsedBlock[]> {
  const { parse: parseCsv } = await loadCsv();
  const records: string[][] = parseCsv(text, {
    bom: true,
    skip_empty_lines: true,
    relax_column_count: true,
  });
  if (records.length === 0) return [];
  return [
    { kind: 'table', header: records[0].map(clean), rows: records.slice(1).map((row) => row.map(clean)) },
  ];
}

/** Pages one at a time, so the page and text caps stop the parse before the next page is read. */
async function pdfToBlocks(buffer: Buffer, meter: ExpansionMeter): Promise<ParsedBlock[]> {
  const budget = meter.budget;
  const { meterPdfStreams } = await loadPdfBudget();
  meterPdfStreams(buffer, meter);
  const { getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(buffer), { verbosity: 0 });
  try {
    if (pdf.numPages > budget.maxPdfPages)
      throw overBudget(budget, 'maxPdfPages', pdf.numPages, 'The number of pages');
    const blocks: ParsedBlock[] = [];
    let chars = 0;
    for (let number = 1; number <= pdf.numPages; number++) {
      const page = await pdf.getPage(number);
      const content = await page.getTextContent();
      let pageText = '';
      for (const item of content.items) if ('str' in item) pageText += item.str + (item.hasEOL ? '\n' : '');
      page.cleanup();
      chars += pageText.length;
      if (chars > budget.maxTextChars)
        throw overBudget(budget, 'maxTextChars', chars, 'The text extracted from the PDF');
      for (const block of plainTextToBlocks(pageText)) blocks.push({ ...block, page: number });
    }
    return blocks;
  } finally {
    await pdf.destroy();
  }
}

function sniffEncryptedOffice(buffer: Buffer, format: DocumentFormat): void {
  if (!OOXML_FORMATS.has(format) || buffer.subarray(0, 8).toString('hex') !== CFB_MAGIC) return;
  if (buffer.includes(Buffer.from('EncryptionInfo', 'utf16le'))) {
    throw new DocumentProcessingError(
      DocumentsExceptionCode.DOCUMENT_ENCRYPTED,
      'The file is password-protected (encrypted Office document); upload an unprotected copy.',
      false,
    );
  }
  throw new DocumentProcessingError(
    DocumentsExceptionCode.DOCUMENT_CORRUPT,
    `The file is a legacy binary Office document, not ${format.toUpperCase()}; save it as .${format}.`,
    false,
  );
}

function toProcessingError(error: unknown, format: DocumentFormat): DocumentProcessingError {
  if (error instanceof DocumentProcessingError) return error;
  const name = (error as Error)?.name ?? '';
  const message = (error as Error)?.message ?? String(error);
  if (name === 'PasswordException') {
    return new DocumentProcessingError(
      DocumentsExceptionCode.DOCUMENT_ENCRYPTED,
      'The PDF is password-protected; upload an unprotected copy.',
      false,
    );
  }
  return new DocumentProcessingError(
    DocumentsExceptionCode.DOCUMENT_CORRUPT,
    `The ${format.toUpperCase()} file could not be read (${name || 'Error'}: ${message.slice(0, 200)}).`,
    false,
  );
}

function checkTextBudget(blocks: ParsedBlock[], budget: ParseBudget): void {
  let chars = 0;
  for (const block of blocks)
    if (block.kind !== 'table') chars += block.text.length;
    else for (const row of [block.header, ...block.rows]) for (const cell of row) chars += cell.length + 1;
  if (chars > budget.maxTextChars)
    throw overBudget(budget, 'maxTextChars', chars, 'The text extracted from the document');
}

/**
 * Bytes -> structural blocks, within `budget`. Unreadable input becomes a non-retryable
 * DocumentProcessingError, input past the budget a DocumentBudgetError.
 */
export async function parseDocument(
  buffer: Buffer,
  format: DocumentFormat,
  budget: ParseBudget = DEFAULT_PARSE_BUDGET,
): Promise<ParsedBlock[]> {
  const meter = new ExpansionMeter(budget);
  let blocks: ParsedBlock[];
  try {
    sniffEncryptedOffice(buffer, format);
    switch (format) {
      case 'text':
        blocks = plainTextToBlocks(decodeUtf8(buffer));
        break;
      case 'markdown':
        blocks = (await loadMarkdown()).markdownToBlocks(decodeUtf8(buffer));
        break;
      case 'html':
        blocks = (await loadHtml()).htmlToBlocks(decodeUtf8(buffer));
        break;
      case 'csv':
        blocks = await csvToBlocks(decodeUtf8(buffer));
        break;
      case 'pdf':
        blocks = await pdfToBlocks(buffer, meter);
        break;
      case 'docx':
        blocks = await (await loadOffice()).docxToBlocks(buffer, meter);
        break;
      case 'pptx':
        blocks = (await loadOffice()).pptxToBlocks(buffer, meter);
        break;
      case 'xlsx':
        blocks = (await loadXlsx()).xlsxToBlocks(buffer, meter);
        break;
    }
  } catch (error) {
    throw toProcessingError(error, format);
  }
  checkTextBudget(blocks, budget);
  if (blocks.length === 0) {
    throw new DocumentProcessingError(
      DocumentsExceptionCode.DOCUMENT_EMPTY,
      'No text could be extracted from the document (a scanned PDF needs OCR first).',
      false,
    );
  }
  return blocks;
}
