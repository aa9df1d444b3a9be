import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';

/**
 * A large Word file built with the `docx` writer the document tests use: `sections` sections of a
 * heading and `paragraphsPerSection` paragraphs of the given texts (cycled), each paragraph tagged
 * with its position so no two are equal. Used by the parse-thread test and `bench:isolation --docx-sections`.
 */
export async function makeLargeDocx(
  texts: readonly string[],
  sections: number,
  paragraphsPerSection = 4,
): Promise<Buffer> {
  const children: Paragraph[] = [];
  let next = 0;
  for (let s = 0; s < sections; s++) {
    children.push(new Paragraph({ text: `Part ${s}: operations notes`, heading: HeadingLevel.HEADING_2 }));
    for (let p = 0; p < paragraphsPerSection; p++) {
      const text = texts[next++ % texts.length];
      children.push(new Paragraph({ children: [new TextRun(`(${s}.${p}) ${text}`)] }));
    }
  }
  return Packer.toBuffer(new Document({ sections: [{ children }] }));
}
