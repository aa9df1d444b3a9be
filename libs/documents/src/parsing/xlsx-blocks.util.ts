import { ExpansionMeter, overBudget } from './parse-budget';
import { clean, ParsedBlock } from './parsed-block';
import { ZipBudgetReader } from './zip-budget-reader';

/**
 * XLSX -> one table per sheet, read straight from the SpreadsheetML parts under the zip budget.
 * Not exceljs: it inflates every entry and builds an object per cell (a 32 MB sheet of 900k cells
 * ran past 10 minutes at 800 MB); this is one linear scan per part.
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity[0] !== '#') return ENTITIES[entity];
    const code = entity[1] === 'x' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : '';
  });
}

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, value] of tag.matchAll(/([\w:]+)\s*=\s*"([^"]*)"/g)) out[name] = decodeXml(value);
  return out;
}

/** The text of every `<t>` run, phonetic guides (`<rPh>`) left out. */
const runText = (xml: string): string =>
  [...xml.replace(/<rPh\b[\s\S]*?<\/rPh>/g, '').matchAll(/<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)]
    .map((m) => decodeXml(m[1]))
    .join('');

function resolveTarget(base: string, target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  const parts = base.split('/').slice(0, -1);
  for (const segment of target.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment !== '.') parts.push(segment);
  }
  return parts.join('/');
}

interface Relationship {
  id: string;
  type: string;
  target: string;
}

function relationships(zip: ZipBudgetReader, part: string): Relationship[] {
  const rels = zip.text(part.replace(/([^/]*)$/, '_rels/$1.rels')) ?? '';
  return [...rels.matchAll(/<Relationship\b[^>]*>/g)]
    .map(([tag]) => attributes(tag))
    .filter((a) => a.Id && a.Target && a.TargetMode !== 'External')
    .map((a) => ({ id: a.Id, type: a.Type ?? '', target: resolveTarget(part, a.Target) }));
}

const ofType = (rels: Relationship[], type: string) => rels.find((r) => r.type.endsWith(`/${type}`))?.target;

const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 45, 46, 47]);

/** Per cell style index: whether its number format shows a date (so the serial becomes a date). */
function dateStyles(stylesXml: string | undefined): boolean[] {
  if (!stylesXml) return [];
  const custom = new Map<number, string>();
  for (const [tag] of stylesXml.matchAll(/<numFmt\b[^>]*>/g)) {
    const { numFmtId, formatCode } = attributes(tag);
    custom.set(Number(numFmtId), formatCode ?? '');
  }
  const isDate = (id: number) => {
    if (BUILTIN_DATE_FORMATS.has(id)) return true;
    const code = custom.get(id)?.replace(/"[^"]*"|\[[^\]]*\]|\\./g, '');
    return code !== undefined && /[dmyhs]/i.test(code);
  };
  const xfs = /<cellXfs\b[^>]*>([\s\S]*?)<\/cellXfs>/.exec(stylesXml)?.[1] ?? '';
  return [...xfs.matchAll(/<xf\b[^>]*>/g)].map(([tag]) => isDate(Number(attributes(tag).numFmtId ?? 0)));
}

const columnOf = (ref: string | undefined): number | null => {
  const letters = /^([A-Z]+)/.exec(ref ?? '')?.[1];
  if (!letters) return null;
  let column = 0;
  for (const letter of letters) column = column * 26 + letter.charCodeAt(0) - 64;
  return column;
};

const excelDate = (serial: number): string =>
  new Date(Math.round((serial - 25569) * 86_400_000)).toISOString();

interface SheetContext {
  shared: string[];
  dates: boolean[];
  countChars(chars: number): void;
}

function cellValue(attrs: Record<string, string>, body: string, ctx: SheetContext): string {
  const raw = /<v(?:\s[^>]*)?>([\s\S]*?)<\/v>/.exec(body)?.[1];
  switch (attrs.t) {
    case 's':
      return ctx.shared[Number(raw)] ?? '';
    case 'inlineStr':
      return runText(/<is\b[^>]*>([\s\S]*?)<\/is>/.exec(body)?.[1] ?? '');
    case 'b':
      return raw === undefined ? '' : String(raw === '1');
    case 'str':
    case 'e':
      return raw === undefined ? '' : decodeXml(raw);
    default: {
      if (raw === undefined || raw.trim() === '') return '';
      const number = Number(raw);
      if (Number.isNaN(number)) return decodeXml(raw);
      return ctx.dates[Number(attrs.s ?? 0)] ? excelDate(number) : String(number);
    }
  }
}

function sheetRows(xml: string, ctx: SheetContext): string[][] {
  const rows: Array<Map<number, string>> = [];
  let width = 0;
  const data = /<sheetData\b[^>]*>([\s\S]*)<\/sheetData>/.exec(xml)?.[1] ?? '';
  for (const [, rowBody] of data.matchAll(/<row\b[^>]*?(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    if (!rowBody) continue;
    const cells = new Map<number, string>();
    let next = 1;
    for (const [, tag, body] of rowBody.matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const attrs = attributes(tag);
      const column = columnOf(attrs.r) ?? next;
      next = column + 1;
      const value = clean(cellValue(attrs, body ?? '', ctx));
      ctx.countChars(value.length + 1);
      if (value !== '') cells.set(column, value);
      width = Math.max(width, column);
    }
    if (cells.size > 0) rows.push(cells);
  }
  return rows.map((cells) => Array.from({ length: width }, (_, i) => cells.get(i + 1) ?? ''));
}

/** One table per sheet, in workbook order (first non-empty row is the header). */
export function xlsxToBlocks(buffer: Buffer, meter: ExpansionMeter): ParsedBlock[] {
  const zip = ZipBudgetReader.open(buffer, meter);
  const workbookPath = ofType(relationships(zip, ''), 'officeDocument') ?? 'xl/workbook.xml';
  const workbook = zip.text(workbookPath);
  if (workbook === undefined) throw new Error(`not an Excel file: ${workbookPath} is missing`);
  const rels = relationships(zip, workbookPath);
  const sharedPath = ofType(rels, 'sharedStrings');
  const stylesPath = ofType(rels, 'styles');
  const shared = [
    ...((sharedPath && zip.text(sharedPath)) || '').matchAll(/<si\b[^>]*?(?:\/>|>([\s\S]*?)<\/si>)/g),
  ].map((m) => runText(m[1] ?? ''));
  let chars = 0;
  const ctx: SheetContext = {
    shared,
    dates: dateStyles(stylesPath ? zip.text(stylesPath) : undefined),
    countChars: (n) => {
      chars += n;
      if (chars > meter.budget.maxTextChars)
        throw overBudget(meter.budget, 'maxTextChars', chars, 'The text extracted from the workbook');
    },
  };
  const sheets = [...workbook.matchAll(/<sheet\b[^>]*>/g)].map(([tag]) => attributes(tag));
  if (sheets.length === 0) throw new Error('the workbook has no sheets');
  const blocks: ParsedBlock[] = [];
  for (const sheet of sheets) {
    const path = rels.find((r) => r.id === sheet['r:id'])?.target;
    const xml = path ? zip.text(path) : undefined;
    if (xml === undefined) continue;
    const rows = sheetRows(xml, ctx);
    if (rows.length === 0) continue;
    const name = sheet.name ?? '';
    blocks.push({ kind: 'heading', level: 2, text: name });
    blocks.push({ kind: 'table', header: rows[0], rows: rows.slice(1), caption: name });
  }
  return blocks;
}
