import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

/** What Node's CommonJS loader has and @types/node does not declare. */
interface LoaderModule {
  exports: unknown;
  require(id: string): unknown;
  _compile: (this: LoaderModule, content: string, filename: string, format?: string) => unknown;
}
type LoaderStatics = typeof Module & {
  wrap(content: string): string;
  _resolveFilename(request: string, parent: LoaderModule, isMain: boolean, options?: unknown): string;
  _resolveLookupPaths(request: string, parent: LoaderModule): string[] | null;
  _extensions: unknown;
  _cache: unknown;
};

/** `import(` anywhere in a module's text (a comment or string too: such a module is just not cached). */
const DYNAMIC_IMPORT = /\bimport\s*\(/;

/** One process's use of the cache, for its log line. */
export interface CodeCacheStats {
  file: string;
  hits: number;
  misses: number;
  rejected: number;
}

/**
 * A V8 code cache for the CommonJS modules a process loads: what Node 22's `module.enableCompileCache()`
 * does, which Node 20 lacks. A start of the API server compiles ~2,000 modules (ours and node_modules');
 * with the bytecode V8 produced for them on an earlier start, it skips parsing and compiling them (and
 * the functions that ran during that start). Entries are keyed by file and content hash, so a changed
 * file is compiled afresh and a cache of another Node version is rejected by V8 itself and replaced.
 * `save()` writes the cache when this start compiled anything it did not hold; a cache that cannot be
 * read or written (read-only install) only costs the compile it would have saved.
 */
export class CodeCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly scripts = new Map<string, vm.Script>();
  private hits = 0;
  private misses = 0;
  private rejected = 0;

  private constructor(readonly file: string) {}

  /**
   * Installs the cache for the modules loaded from now on (so call it before loading them). Not with
   * --enable-source-maps: Node maps stack traces only for modules it compiled itself.
   */
  static enable(name: string, dir = CodeCache.defaultDir()): CodeCache | null {
    if (
      process.execArgv.includes('--enable-source-maps') ||
      process.env.NODE_OPTIONS?.includes('source-maps')
    )
      return null;
    const cache = new CodeCache(path.join(dir, `${name}-${process.version}-${process.arch}.bin`));
    cache.read();
    cache.install();
    return cache;
  }

  /** dist/.code-cache, beside the build it serves (builds keep it: scripts/build.mjs). */
  static defaultDir(): string {
    return path.resolve(__dirname, '../../../.code-cache');
  }

  get stats(): CodeCacheStats {
    return { file: this.file, hits: this.hits, misses: this.misses, rejected: this.rejected };
  }

  /** Writes the bytecode of every module compiled so far, when any was not in the cache; false when not written. */
  save(): boolean {
    if (this.misses === 0 && this.rejected === 0) return false;
    const index: Array<[string, number]> = [];
    const blobs: Buffer[] = [];
    for (const [key, script] of this.scripts) {
      const data = script.createCachedData();
      index.push([key, data.length]);
      blobs.push(data);
    }
    const header = Buffer.from(JSON.stringify(index));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      const staging = `${this.file}.${process.pid}`;
      writeFileSync(staging, Buffer.concat([length, header, ...blobs]));
      renameSync(staging, this.file);
      return true;
    } catch {
      return false;
    }
  }

  private read(): void {
    let data: Buffer;
    try {
      data = readFileSync(this.file);
    } catch {
      return;
    }
    try {
      const headerLength = data.readUInt32LE(0);
      const index = JSON.parse(data.toString('utf8', 4, 4 + headerLength)) as Array<[string, number]>;
      let offset = 4 + headerLength;
      for (const [key, size] of index) {
        this.entries.set(key, data.subarray(offset, offset + size));
        offset += size;
      }
    } catch {
      this.entries.clear();
    }
  }

  private install(): void {
    const loader = Module as LoaderStatics;
    const proto = Module.prototype as unknown as LoaderModule;
    const compile = proto._compile;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const cache = this;
    proto._compile = function (
      this: LoaderModule,
      content: string,
      filename: string,
      format?: string,
    ): unknown {
      // Node's own way: an ES module required from CommonJS, and a module with a dynamic import(), which
      // a script compiled by node:vm can only make through an experimental loader option that Node 20
      // also drops for a script compiled from cached data.
      if (format === 'module') return compile.call(this, content, filename, format);
      // One-shot hash (no Hash object per module); a module the cache holds was compiled here before, so
      // it has no dynamic import() and the scan of its text is skipped.
      const key = `${filename}\0${hash('sha1', content, 'base64')}`;
      const cachedData = cache.entries.get(key);
      if (!cachedData && DYNAMIC_IMPORT.test(content)) return compile.call(this, content, filename, format);
      let script: vm.Script;
      try {
        script = new vm.Script(loader.wrap(content), { filename, cachedData });
      } catch {
        // Whatever V8 refuses here, Node's own compile reports as it always does.
        return compile.call(this, content, filename, format);
      }
      if (!cachedData) cache.misses++;
      else if (script.cachedDataRejected) cache.rejected++;
      else cache.hits++;
      cache.scripts.set(key, script);
      const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
      return wrapper.call(
        this.exports,
        this.exports,
        requireFor(this, loader),
        this,
        filename,
        path.dirname(filename),
      );
    };
  }
}

/** The `require` a module sees, as Node builds it (lib/internal/modules/helpers.js makeRequireFunction). */
function requireFor(module: LoaderModule, loader: LoaderStatics): NodeJS.Require {
  const require = ((id: string) => module.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: unknown) =>
    loader._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => loader._resolveLookupPaths(request, module);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = loader._extensions as NodeJS.RequireExtensions;
  require.cache = loader._cache as NodeJS.Dict<NodeModule>;
  return require;
}
