// The jest environment of the medium and e2e tiers: jest's node environment, plus letting go of what a
// spec file's realm (its vm context) holds once the file is done.
//
// Under --experimental-vm-modules (which PGlite's and unpdf's dynamic import() need), Node keeps some
// finished files' vm contexts alive in the jest worker (nodejs/node#63186, jestjs/jest#14605). What the
// realm's globals reach stays with it: reflect-metadata keeps its registry on the realm's Reflect, and
// through it every decorated class of the application, its providers and their module state
// (libpg-query's 134 MB WebAssembly memory among them). Measured after forced collections, a worker
// kept 150-250 MB per spec file; after 7 files it held ~900 MB (RSS) and, on a busy 2-core machine
// (load 10-12), took 1.1-1.3 s to exit after jest's END with an empty event loop (V8 finishing a
// concurrent marking, then freeing the heap and the address space): past the 500 ms jest-worker waits
// before force-killing it ("A worker process has failed to exit gracefully"). Deleting what the file
// added to the realm leaves a retained context holding little (jest 30's globalsCleanup does likewise).
const NodeEnvironment = require('jest-environment-node').TestEnvironment;

class ReleasingEnvironment extends NodeEnvironment {
  constructor(config, context) {
    super(config, context);
    // JavaScript's and Node's globals stay: a callback of the file that still runs after teardown (a
    // WebAssembly module finishing its load, say) finds Int8Array or setTimeout where it expects them.
    this.builtinGlobals = new Set(Reflect.ownKeys(this.global));
  }

  async teardown() {
    const realm = this.global;
    await super.teardown();
    this.global = null;
    if (realm) releaseRealm(realm, this.builtinGlobals);
    // With --expose-gc (npm test sets it), collect before the worker reports the file done: jest
    // resolves the file's result on the next setImmediate, after this one, so the collection is over
    // before the parent can send the next file or END. A worker that ends the run then holds only
    // what is live, not every finished file's garbage, and has little to free when it exits.
    if (typeof globalThis.gc === 'function') setImmediate(globalThis.gc);
  }
}

/**
 * Deletes what the file added to its realm: reflect-metadata's registry on the realm's Reflect and the
 * globals set after the environment was made (jest's test tree and expect among them).
 */
function releaseRealm(realm, builtinGlobals) {
  const reflect = realm.Reflect;
  if (reflect)
    for (const key of Reflect.ownKeys(reflect)) if (!BUILTIN_REFLECT.has(key)) remove(reflect, key);
  for (const key of Reflect.ownKeys(realm)) if (!builtinGlobals.has(key)) remove(realm, key);
}

function remove(target, key) {
  try {
    delete target[key];
  } catch {
    // a non-configurable property stays
  }
}

const BUILTIN_REFLECT = new Set(Reflect.ownKeys(Reflect));

module.exports = ReleasingEnvironment;
