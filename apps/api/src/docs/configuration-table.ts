import { describeConfig } from '@app/platform/config';
import { CONFIG_SECTIONS } from '../config-schemas';

/** The generated part of docs/configuration.md lies between these two lines. */
export const TABLE_START = '<!-- config-table:start -->';
export const TABLE_END = '<!-- config-table:end -->';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** One table per lib, from its config class: every key, its default and its meaning (@ConfigDoc). */
export function configurationTables(): string {
  const parts = CONFIG_SECTIONS.map(({ lib, schema }) => {
    const rows = describeConfig(schema).map(
      ({ key, shown, meaning }) => `| \`${key}\` | ${cell(shown)} | ${cell(meaning ?? '')} |`,
    );
    return [
      `### ${lib}`,
      '',
      `\`${schema.name}\` in \`libs/${lib}/src/${lib}.config.ts\`.`,
      '',
      '| key | default | meaning |',
      '|---|---|---|',
      ...rows,
    ].join('\n');
  });
  return [TABLE_START, '', parts.join('\n\n'), '', TABLE_END].join('\n');
}

/** The page with its generated part replaced by `tables`. */
export function withTables(page: string, tables = configurationTables()): string {
  const start = page.indexOf(TABLE_START);
  const end = page.indexOf(TABLE_END);
  if (start < 0 || end < start)
    throw new Error(`docs/configuration.md has no ${TABLE_START} ... ${TABLE_END}`);
  return page.slice(0, start) + tables + page.slice(end + TABLE_END.length);
}
