import ts from 'typescript';

/** A call or import as the TypeScript compiler resolves it: `file:line -> target file#name`. */
export interface ReferenceSets {
  calls: Set<string>;
  imports: Set<string>;
}

const ROOT = '/repo/';

function declarationName(declaration: ts.Declaration): string | null {
  if (
    (ts.isFunctionDeclaration(declaration) ||
      ts.isMethodDeclaration(declaration) ||
      ts.isClassDeclaration(declaration)) &&
    declaration.name
  )
    return declaration.name.getText();
  if (
    (ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration)) &&
    declaration.initializer &&
    (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
  )
    return declaration.name.getText();
  return null;
}

/**
 * For every call and `new` expression of the repository, the declaration the TypeScript type
 * checker resolves its callee to, when that declaration is a function, method, class or
 * function-valued variable declared in the repository; and for every import or re-export, the
 * repository file module resolution picks. The independent reference the code graph is scored on.
 */
export function typescriptReference(files: Map<string, string>): ReferenceSets {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowJs: true,
    noEmit: true,
    skipLibCheck: true,
    strict: false,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const virtual = (fileName: string) => (fileName.startsWith(ROOT) ? fileName.slice(ROOT.length) : null);
  const originalGetSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (fileName) => {
    const rel = virtual(fileName);
    return rel !== null ? files.has(rel) : ts.sys.fileExists(fileName);
  };
  host.readFile = (fileName) => {
    const rel = virtual(fileName);
    return rel !== null ? files.get(rel) : ts.sys.readFile(fileName);
  };
  host.directoryExists = (dir) => {
    const rel = virtual(dir.endsWith('/') ? dir : `${dir}/`);
    if (rel !== null) return [...files.keys()].some((f) => f.startsWith(rel));
    return dir === '/repo' || (ts.sys.directoryExists?.(dir) ?? false);
  };
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const rel = virtual(fileName);
    if (rel !== null) {
      const text = files.get(rel);
      return text === undefined ? undefined : ts.createSourceFile(fileName, text, languageVersion, true);
    }
    return originalGetSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  host.getCurrentDirectory = () => '/repo';
  const roots = [...files.keys()].filter((f) => /\.(ts|tsx|js|mjs)$/.test(f)).map((f) => ROOT + f);
  const program = ts.createProgram(roots, options, host);
  const checker = program.getTypeChecker();
  const calls = new Set<string>();
  const imports = new Set<string>();

  for (const source of program.getSourceFiles()) {
    const from = virtual(source.fileName);
    if (from === null) continue;
    const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    const visit = (node: ts.Node): void => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        const specifier = (node.moduleSpecifier as ts.StringLiteral).text;
        const resolved = ts.resolveModuleName(specifier, source.fileName, options, host).resolvedModule;
        const target = resolved ? virtual(resolved.resolvedFileName) : null;
        if (target) imports.add(`${from}->${target}`);
      }
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        const callee = node.expression;
        const nameNode = ts.isPropertyAccessExpression(callee)
          ? callee.name
          : ts.isIdentifier(callee)
            ? callee
            : null;
        let symbol = nameNode ? checker.getSymbolAtLocation(nameNode) : undefined;
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        const declaration = symbol?.declarations?.[0];
        const target = declaration ? virtual(declaration.getSourceFile().fileName) : null;
        const name = declaration ? declarationName(declaration) : null;
        if (target && name) calls.add(`${from}:${lineOf(node)}->${target}#${name}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { calls, imports };
}
