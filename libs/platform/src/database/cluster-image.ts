import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';

/**
 * The prepared embedded cluster: a PGlite data directory made by initdb, with pgvector and the migrations
 * known when it was made applied, as the uncompressed tar PGlite's `dumpDataDir('none')` writes,
 * brotli-compressed (~1.5 MB for ~40 MB). A first start unpacks it instead of running initdb in WASM and
 * every migration (initdb alone took 3.7 s on a quiet 2-core machine, 23-45 s on a loaded one); newer
 * migrations run on top as usual. `npm run embedded:image` makes it again (after adding migrations, or
 * upgrading PGlite or pgvector); a start whose installed versions differ from the image's runs initdb.
 */
export const CLUSTER_IMAGE = path.join(__dirname, 'embedded-cluster.tar.br');
export const CLUSTER_IMAGE_META = path.join(__dirname, 'embedded-cluster.json');

export interface ClusterImageMeta {
  pglite: string;
  pgvector: string;
  /** The migrations applied in the image; later ones run at a first start. */
  migrations?: string[];
}

/** The versions the image must have been made with: the installed PGlite and pgvector packages. */
export function installedVersions(): ClusterImageMeta {
  const version = (name: string) => {
    // The package's main file, then up to its package.json (its "exports" may not list package.json).
    let dir = path.dirname(require.resolve(name));
    while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  };
  return { pglite: version('@electric-sql/pglite'), pgvector: version('@electric-sql/pglite-pgvector') };
}

/** Why the image cannot be used here, or null when it can. */
export function clusterImageMismatch(imageDir = path.dirname(CLUSTER_IMAGE)): string | null {
  const image = path.join(imageDir, path.basename(CLUSTER_IMAGE));
  const metaFile = path.join(imageDir, path.basename(CLUSTER_IMAGE_META));
  if (!existsSync(image) || !existsSync(metaFile)) return `no prepared cluster image at ${image}`;
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as ClusterImageMeta;
  const installed = installedVersions();
  if (meta.pglite !== installed.pglite || meta.pgvector !== installed.pgvector) {
    return (
      `the prepared cluster image is for PGlite ${meta.pglite} + pgvector ${meta.pgvector}, installed are ` +
      `${installed.pglite} + ${installed.pgvector} (run npm run embedded:image)`
    );
  }
  return null;
}

/**
 * Unpacks the image into `pgDataDir`, which must not hold a cluster yet. It is unpacked next to it and
 * renamed into place, so a start that dies half-way leaves no half cluster behind. Synchronous: it runs
 * before the embedded database's thread starts, which a server starts before loading its modules
 * (a callback from the thread pool would wait for those), and the ~40 MB take a fraction of a second.
 */
export function unpackClusterImage(pgDataDir: string, image = CLUSTER_IMAGE): void {
  const tar = brotliDecompressSync(readFileSync(image));
  const staging = `${pgDataDir}.unpacking-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o700 });
  try {
    extractTar(tar, staging);
    // An empty directory left by an earlier attempt (or made by hand) is replaced.
    if (existsSync(pgDataDir) && readdirSync(pgDataDir).length === 0) rmdirSync(pgDataDir);
    renameSync(staging, pgDataDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Regular files and directories of a ustar archive (what PGlite's dumpDataDir writes); other entries fail. */
export function extractTar(tar: Buffer, into: string): number {
  const root = path.resolve(into);
  let offset = 0;
  let files = 0;
  const field = (start: number, length: number) =>
    tar.toString('utf8', offset + start, offset + start + length).replace(/\0.*$/s, '');
  while (offset + 512 <= tar.length) {
    if (tar.subarray(offset, offset + 512).every((byte) => byte === 0)) break;
    const prefix = field(345, 155);
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const type = field(156, 1) || '0';
    const target = path.resolve(root, `.${path.posix.sep}${name.replace(/^\/+/, '')}`);
    if (target !== root && !target.startsWith(`${root}${path.sep}`))
      throw new Error(`cluster image entry outside the data directory: ${name}`);
    const body = offset + 512;
    // Synchronous: ~1,000 small files, once per data directory; a write each to the thread pool and back
    // took seconds on a loaded machine.
    if (type === '5') {
      mkdirSync(target, { recursive: true, mode: 0o700 });
    } else if (type === '0') {
      mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, tar.subarray(body, body + size), { mode: 0o600 });
      files++;
    } else {
      throw new Error(`unsupported entry type "${type}" in the cluster image (${name})`);
    }
    offset = body + Math.ceil(size / 512) * 512;
  }
  return files;
}
