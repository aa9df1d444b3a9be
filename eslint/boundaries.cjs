// The libraries' layers as a lint rule: a file may import another lib only through its public
// surface (`@app/<lib>`) and only when that lib is allowed below it; a relative path that lands in
// another lib (at any depth) or in apps/ is refused. The allowed arrows are the ones drawn in
// ARCHITECTURE.md. The migrations (`migrations/`, `@app/migrations`) are not a lib but the platform's:
// of the libs only platform may import them (apps, tests and benches may too).
const path = require('node:path');

/** Each lib under libs/ and the libs it may import (a unit test keeps the keys equal to the folders). */
const LAYERS = {
  platform: [],
  documents: ['platform'],
  'asset-registry': ['platform'],
  tools: ['platform', 'documents', 'asset-registry'],
  ops: ['platform', 'documents', 'asset-registry', 'tools'],
  code: ['platform', 'documents', 'asset-registry', 'tools'],
  planner: ['platform', 'documents', 'asset-registry', 'tools', 'ops', 'code'],
  assistant: ['platform', 'documents', 'asset-registry', 'tools', 'ops', 'code', 'planner'],
};

const ROOT = path.resolve(__dirname, '..');

/** 'libs/<lib>/...' -> lib, 'apps/...' -> 'apps', 'migrations/...' -> 'migrations', else null. */
function ownerOf(absolutePath) {
  const relative = path.relative(ROOT, absolutePath).split(path.sep);
  if (relative[0] === 'libs' && relative.length > 1) return relative[1];
  if (relative[0] === 'apps') return 'apps';
  if (relative[0] === 'migrations') return 'migrations';
  return null;
}

const layersRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the library layers and public surfaces' },
    schema: [],
    messages: {
      deep: 'Import {{lib}} through its public surface: @app/{{lib}}.',
      relative: 'This relative import reaches into {{target}}; use @app/{{target}}.',
      apps: 'Libraries must not depend on apps/.',
      upward: '@app/{{target}} is not below {{lib}}: {{lib}} may import {{allowed}}.',
      migrations: "The migrations are the platform's: {{lib}} may not import @app/migrations.",
    },
  },
  create(context) {
    const filename = context.filename ?? context.getFilename();
    const owner = ownerOf(filename);
    const isLib = owner !== null && owner in LAYERS;
    function check(node, source) {
      if (typeof source !== 'string') return;
      const alias = source.match(/^@app\/([^/]+)(\/.*)?$/);
      if (alias) {
        const [, target, deep] = alias;
        if (target === 'migrations' && !deep) {
          if (isLib && owner !== 'platform')
            context.report({ node, messageId: 'migrations', data: { lib: owner } });
          return;
        }
        // `@app/<lib>/testing`: a test-only entry (repositories for medium tests), for test/ and bench/ only.
        if (deep === '/testing' && owner === null) return;
        // `@app/platform/boot`: the light start-up entry a server's main() loads before the application.
        if (target === 'platform' && deep === '/boot' && !isLib) return;
        // `@app/<lib>/config`: a lib's config class alone (light), for the entry points that validate the
        // whole environment before loading the application; libs read another lib's config through its
        // public surface, and every lib builds its config class with `@app/platform/config`.
        if (deep === '/config' && (!isLib || target === 'platform')) return;
        if (deep) return context.report({ node, messageId: 'deep', data: { lib: target } });
        if (isLib && target !== owner && !LAYERS[owner].includes(target))
          context.report({
            node,
            messageId: 'upward',
            data: {
              target,
              lib: owner,
              allowed: LAYERS[owner].map((l) => `@app/${l}`).join(', ') || 'no lib',
            },
          });
        return;
      }
      if (!source.startsWith('.')) return;
      const target = ownerOf(path.resolve(path.dirname(filename), source));
      if (target === owner || target === null) return;
      if (target === 'apps') return isLib ? context.report({ node, messageId: 'apps' }) : undefined;
      if (target in LAYERS) context.report({ node, messageId: 'relative', data: { target } });
      else if (target === 'migrations' && owner !== 'platform' && isLib)
        context.report({ node, messageId: 'migrations', data: { lib: owner } });
    }
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};

module.exports = { LAYERS, boundariesPlugin: { rules: { layers: layersRule } } };
