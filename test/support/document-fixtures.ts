import {
  Document,
  ImageRun,
  Packer,
  Paragraph,
  HeadingLevel,
  Table,
  TableCell,
  TableRow,
  TextRun,
} from 'docx';
import ExcelJS from 'exceljs';
import PDFDocument from 'pdfkit';
import PptxGenJS from 'pptxgenjs';

// 1x1 transparent PNG
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/** Real files for every supported binary format, generated with well-kept writer libraries. */
export async function makePdf(pages: string[], options: { password?: string } = {}): Promise<Buffer> {
  const doc = new PDFDocument(
    options.password ? { userPassword: options.password, ownerPassword: 'owner' } : {},
  );
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  pages.forEach((text, i) => {
    if (i > 0) doc.addPage();
    doc.text(text);
  });
  doc.end();
  return done;
}

export async function makeDocx(): Promise<Buffer> {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: 'Database failover runbook', heading: HeadingLevel.HEADING_1 }),
          new Paragraph({
            children: [new TextRun('Promote the replica when the primary is unreachable for five minutes.')],
          }),
          new Table({
            rows: [
              new TableRow({
                children: ['Cluster', 'Owner'].map((t) => new TableCell({ children: [new Paragraph(t)] })),
              }),
              new TableRow({
                children: ['pg-main', 'dba-team'].map((t) => new TableCell({ children: [new Paragraph(t)] })),
              }),
            ],
          }),
          new Paragraph({
            children: [
              new ImageRun({
                type: 'png',
                data: PNG,
                transformation: { width: 10, height: 10 },
                altText: { name: 'topology', description: 'Replication topology diagram', title: 'Topology' },
              }),
            ],
          }),
        ],
      },
    ],
  });
  return Packer.toBuffer(doc);
}

export async function makePptx(): Promise<Buffer> {
  const pptx = new PptxGenJS();
  const first = pptx.addSlide();
  first.addText('Incident review', { x: 0.5, y: 0.3, w: 8, h: 1 });
  first.addText('Latency spiked in the checkout service', { x: 0.5, y: 1.5, w: 8, h: 1 });
  first.addNotes('Mention the cache stampede');
  const second = pptx.addSlide();
  second.addText('Action items', { x: 0.5, y: 0.3, w: 8, h: 1 });
  second.addTable(
    [
      [{ text: 'Action' }, { text: 'Owner' }],
      [{ text: 'Add circuit breaker' }, { text: 'payments' }],
    ],
    {
      x: 0.5,
      y: 1.5,
      w: 8,
    },
  );
  second.addImage({
    data: `data:image/png;base64,${PNG.toString('base64')}`,
    x: 1,
    y: 4,
    w: 1,
    h: 1,
    altText: 'Error budget burn chart',
  });
  return (await pptx.write({ outputType: 'nodebuffer' })) as Buffer;
}

export async function makeXlsx(sheets: Record<string, string[][]>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of Object.entries(sheets)) workbook.addWorksheet(name).addRows(rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export async function makeEncryptedXlsx(): Promise<Buffer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const XlsxPopulate = require('xlsx-populate') as {
    fromBlankAsync(): Promise<{
      sheet(i: number): { cell(ref: string): { value(v: string): void } };
      outputAsync(o: { password: string }): Promise<Buffer>;
    }>;
  };
  const workbook = await XlsxPopulate.fromBlankAsync();
  workbook.sheet(0).cell('A1').value('secret data');
  return workbook.outputAsync({ password: 'secret' });
}

export { makeLargeDocx } from '@app/documents/testing';
