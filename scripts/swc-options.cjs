// One swc configuration for the build and for jest, so tests run the code as it ships.
const path = require('node:path');
const tsconfig = require('../tsconfig.json');

const root = path.resolve(__dirname, '..');

function swcOptions() {
  return {
    $schema: 'https://swc.rs/schema.json',
    sourceMaps: true,
    module: { type: 'commonjs', strictMode: true },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true, dynamicImport: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
      baseUrl: root,
      paths: tsconfig.compilerOptions.paths,
    },
  };
}

module.exports = { swcOptions, root };
