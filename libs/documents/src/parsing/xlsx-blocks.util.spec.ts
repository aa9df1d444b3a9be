import ExcelJS from 'exceljs';
import { DocumentBudgetError } from '../documents.exception';
import { DEFAULT_PARSE_BUDGET, ExpansionMeter } from './parse-budget';
import { xlsxToBlocks } from './xlsx-blocks.util';

/** What the exceljs-based parser produced: the reference this reader must match. */
async function viaExcelJs(buffer: Buffer): Promise<Array<{ name: string; rows: string[][] }>> {
  const cellText = (value: ExcelJS.CellValue): string => {
    if (value === null || value === undefined) return '';
    if (value instanceof Date) return value.toISOString();
    if (typeof value === 'object') {
      if ('result' in value) return cellText(value.result);
      if ('richText' in value) return value.richText.map((run) => run.text).join('');
      if ('text' in value) return String(value.text);
      if ('error' in value) return String(value.error);
      return '';
    }
    return String(value);
  };
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(buffer as unknown as ArrayBuffer);
  return workbook.worksheets.map((sheet) => {
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const values: string[] = [];
      for (let c = 1; c <= sheet.columnCount; c++) values.push(cellText(row.getCell(c).value).trim());
      if (values.some((v) => v !== '')) rows.push(values);
    });
    return { name: sheet.name, rows };
  });
}

const meter = () => new ExpansionMeter(DEFAULT_PARSE_BUDGET);

function tables(buffer: Buffer) {
  return xlsxToBlocks(buffer, meter()).flatMap((b) =>
    b.kind === 'table' ? [{ name: b.caption ?? '', rows: [b.header, ...b.rows] }] : [],
  );
}

describe('xlsxToBlocks', () => {
  it('reads what exceljs read: shared and inline strings, numbers, dates, booleans, formulas, rich text, gaps', async () => {
    const workbook = new ExcelJS.Workbook();
    const hosts = workbook.addWorksheet('Hosts');
    hosts.addRow(['name', 'cpu', 'since', 'up', 'load']);
    hosts.addRow(['web-1 & <db>', 4, new Date('2024-03-05T00:00:00Z'), true, { formula: 'B2*2', result: 8 }]);
    hosts.addRow(['web-2', 2.5, null, false, { formula: 'B3*2', result: 5 }]);
    hosts.getCell('A4').value = { richText: [{ text: 'rich ' }, { font: { bold: true }, text: 'text' }] };
    hosts.getCell('E6').value = 'far cell';
    hosts.getCell('B7').value = { text: 'a link', hyperlink: 'https://example.com' };
    workbook.addWorksheet('Empty');
    workbook.addWorksheet('Ünïcode').addRows([
      ['ключ', '値'],
      ['emoji 🚀', '"quoted"'],
    ]);
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    const expected = (await viaExcelJs(buffer)).filter((s) => s.rows.length > 0);
    expect(tables(buffer)).toEqual(expected);
  });

  it('stops at the text budget', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook
      .addWorksheet('Big')
      .addRows(Array.from({ length: 200 }, (_, i) => [`row ${i} ${'x'.repeat(50)}`]));
    const buffer = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(() =>
      xlsxToBlocks(buffer, new ExpansionMeter({ ...DEFAULT_PARSE_BUDGET, maxTextChars: 5000 })),
    ).toThrow(DocumentBudgetError);
  });
});
