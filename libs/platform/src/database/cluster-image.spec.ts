import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clusterImageMismatch, extractTar, unpackClusterImage } from './cluster-image';

/** One ustar entry: a 512-byte header (name, size in octal, type, checksum) and the padded body. */
function tarEntry(name: string, body: string, type = '0'): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100);
  header.write(`${Buffer.byteLength(body).toString(8).padStart(11, '0')}\0`, 124);
  header.write(type, 156);
  header.write('ustar\0', 257);
  header.write('        ', 148);
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padded = Buffer.alloc(Math.ceil(Buffer.byteLength(body) / 512) * 512);
  padded.write(body);
  return Buffer.concat([header, padded]);
}

describe('the prepared embedded cluster image', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ops-cluster-image-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('matches the installed PGlite and pgvector, and unpacks into a cluster PGlite resumes', () => {
    expect(clusterImageMismatch()).toBeNull();
    const pgdata = path.join(dir, 'pgdata');
    unpackClusterImage(pgdata);
    expect(readFileSync(path.join(pgdata, 'PG_VERSION'), 'utf8').trim()).toBe('18');
    expect(existsSync(path.join(pgdata, 'global/pg_control'))).toBe(true);
    // Nothing left beside it from the unpacking.
    expect(readdirSync(dir)).toEqual(['pgdata']);
    // A bound for a loaded machine, not a timing assertion.
  }, 60_000);

  it('refuses entries outside the data directory and entry types it does not know', () => {
    const end = Buffer.alloc(1024);
    expect(() => extractTar(Buffer.concat([tarEntry('../escape', 'x'), end]), dir)).toThrow(
      /outside the data directory/,
    );
    expect(() => extractTar(Buffer.concat([tarEntry('/link', '', '2'), end]), dir)).toThrow(
      /unsupported entry type "2"/,
    );
    expect(extractTar(Buffer.concat([tarEntry('/base/1/112', 'page'), end]), dir)).toBe(1);
    expect(readFileSync(path.join(dir, 'base/1/112'), 'utf8')).toBe('page');
    expect(existsSync(path.join(path.dirname(dir), 'escape'))).toBe(false);
  });
});
