/** What the main thread tells the embedded database thread at start. */
export interface EmbeddedWorkerData {
  modules: { pglite: string; vector: string; socket: string };
  pgDataDir: string;
  socketPath: string;
  maxConnections: number;
}

export type EmbeddedWorkerMessage =
  { type: 'ready'; ms: number } | { type: 'failed'; message: string; stack?: string } | { type: 'stopped' };

/**
 * The embedded database thread, as CommonJS source for a `new Worker(source, { eval: true })`: it runs
 * PGlite and its socket server off the main thread, so a statement that burns CPU in the WASM engine
 * cannot stall the HTTP event loop, and the main thread can end it by terminating the thread. It is a
 * string rather than a file so that it runs the same from dist/ and from TypeScript sources under jest.
 */
export const EMBEDDED_WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { PGlite } = require(workerData.modules.pglite);
const { vector } = require(workerData.modules.vector);
const { PGLiteSocketServer } = require(workerData.modules.socket);
let db;
let server;
(async () => {
  const started = Date.now();
  try {
    db = await PGlite.create({ dataDir: workerData.pgDataDir, extensions: { vector } });
    server = new PGLiteSocketServer({ db, path: workerData.socketPath, maxConnections: workerData.maxConnections });
    await server.start();
    parentPort.postMessage({ type: 'ready', ms: Date.now() - started });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', message: String(error && error.message || error), stack: error && error.stack });
  }
})();
parentPort.on('message', async (message) => {
  if (message !== 'stop') return;
  try {
    if (server) await server.stop();
    if (db) await db.close();
  } finally {
    parentPort.postMessage({ type: 'stopped' });
  }
});
`;
