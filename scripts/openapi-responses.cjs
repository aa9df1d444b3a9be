// Reads each controller method's declared return type (the view interfaces the services return) with the
// TypeScript type checker and turns it into a JSON Schema, so the documented success responses come from
// the same types the code is checked against. Output: { operations: { 'Controller_method': schema },
// schemas: { Name: schema } } (named interfaces and aliases become components referenced with $ref).
const ts = require('typescript');

const HTTP_DECORATORS = new Set(['Get', 'Post', 'Put', 'Patch', 'Delete']);

function decoratorNames(node) {
  return (ts.canHaveDecorators(node) ? (ts.getDecorators(node) ?? []) : []).map((d) =>
    ts.isCallExpression(d.expression) ? d.expression.expression.getText() : d.expression.getText(),
  );
}

function responseSchemas(program) {
  const checker = program.getTypeChecker();
  const schemas = {};
  const operations = {};
  const naming = new Map();

  const componentName = (type) => {
    const symbol = type.aliasSymbol ?? type.getSymbol();
    if (!symbol || symbol.flags & ts.SymbolFlags.TypeLiteral || symbol.getName().startsWith('__'))
      return null;
    const args = type.aliasTypeArguments ?? checker.getTypeArguments?.(type) ?? [];
    const base = symbol.getName();
    if (['Promise', 'Array', 'Record', 'Partial', 'Omit', 'Pick', 'Readonly'].includes(base)) return null;
    const argNames = (type.aliasTypeArguments ?? type.typeArguments ?? args ?? []).map(
      (a) => componentName(a) ?? checker.typeToString(a).replace(/[^A-Za-z0-9]/g, ''),
    );
    return argNames.length ? `${base}_${argNames.join('_')}` : base;
  };

  // OpenAPI 3.0 ignores siblings of $ref, so a nullable reference is wrapped.
  const nullable = (schema) => {
    if (!Object.keys(schema).length) return schema;
    return schema.$ref ? { allOf: [schema], nullable: true } : { ...schema, nullable: true };
  };

  function convert(type, depth = 0) {
    if (depth > 40) return {};
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {};
    if (type.flags & ts.TypeFlags.StringLiteral) return { type: 'string', enum: [type.value] };
    if (type.flags & ts.TypeFlags.NumberLiteral) return { type: 'number', enum: [type.value] };
    if (type.flags & ts.TypeFlags.BooleanLiteral)
      return { type: 'boolean', enum: [checker.typeToString(type) === 'true'] };
    if (type.flags & ts.TypeFlags.String) return { type: 'string' };
    if (type.flags & ts.TypeFlags.Number) return { type: 'number' };
    if (type.flags & ts.TypeFlags.Boolean) return { type: 'boolean' };
    if (type.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) return null;
    if (type.flags & ts.TypeFlags.Null) return { nullable: true };
    if (type.isUnion()) {
      let parts = type.types.filter((t) => !(t.flags & ts.TypeFlags.Undefined));
      const hasNull = parts.some((t) => t.flags & ts.TypeFlags.Null);
      parts = parts.filter((t) => !(t.flags & ts.TypeFlags.Null));
      let schema;
      if (parts.length && parts.every((t) => t.flags & ts.TypeFlags.BooleanLiteral))
        schema = { type: 'boolean' };
      else if (parts.length && parts.every((t) => t.flags & ts.TypeFlags.StringLiteral))
        schema = { type: 'string', enum: parts.map((t) => t.value) };
      else if (parts.length === 1) schema = convert(parts[0], depth + 1);
      else if (parts.length === 0) schema = {};
      else {
        const items = parts.map((t) => convert(t, depth + 1)).filter(Boolean);
        schema = items.some((s) => Object.keys(s).length === 0) ? {} : { anyOf: items };
      }
      return hasNull ? nullable(schema) : schema;
    }
    if (type.isIntersection()) return { allOf: type.types.map((t) => convert(t, depth + 1)).filter(Boolean) };
    const symbolName = type.getSymbol()?.getName();
    if (symbolName === 'Date') return { type: 'string', format: 'date-time' };
    if (symbolName === 'Buffer' || symbolName === 'Uint8Array') return { type: 'string', format: 'binary' };
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      const args = checker.getTypeArguments(type);
      if (checker.isTupleType(type))
        return { type: 'array', items: args.length ? (convert(args[0], depth + 1) ?? {}) : {} };
      return { type: 'array', items: convert(args[0], depth + 1) ?? {} };
    }
    if (type.flags & ts.TypeFlags.Object) {
      const name = componentName(type);
      if (name) {
        if (!naming.has(name)) {
          naming.set(name, true);
          schemas[name] = {};
          schemas[name] = objectSchema(type, depth);
        }
        return { $ref: `#/components/schemas/${name}` };
      }
      return objectSchema(type, depth);
    }
    return {};
  }

  function objectSchema(type, depth) {
    const properties = {};
    const required = [];
    for (const property of checker.getPropertiesOfType(type)) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (!declaration) continue;
      if (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration)) continue;
      const propertyType = checker.getTypeOfSymbolAtLocation(property, declaration);
      if (propertyType.getCallSignatures().length) continue;
      const schema = convert(propertyType, depth + 1);
      if (!schema) continue;
      const doc = ts.displayPartsToString(property.getDocumentationComment(checker)).trim();
      properties[property.getName()] = doc && !schema.$ref ? { ...schema, description: doc } : schema;
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.getName());
    }
    const schema = { type: 'object', properties };
    if (required.length) schema.required = required;
    const index = checker.getIndexInfosOfType(type)[0];
    if (index) schema.additionalProperties = convert(index.type, depth + 1) ?? true;
    else if (!Object.keys(properties).length) schema.additionalProperties = true;
    return schema;
  }

  for (const file of program.getSourceFiles()) {
    if (!file.fileName.endsWith('.controller.ts') || file.fileName.includes('node_modules')) continue;
    ts.forEachChild(file, function visit(node) {
      if (ts.isClassDeclaration(node) && node.name && decoratorNames(node).includes('Controller')) {
        for (const member of node.members) {
          if (!ts.isMethodDeclaration(member) || !decoratorNames(member).some((d) => HTTP_DECORATORS.has(d)))
            continue;
          const signature = checker.getSignatureFromDeclaration(member);
          if (!signature) continue;
          let returned = checker.getReturnTypeOfSignature(signature);
          if (returned.getSymbol()?.getName() === 'Promise')
            returned = checker.getTypeArguments(returned)[0] ?? returned;
          // `Body | StreamableFile`: the JSON body, or the same run as text/event-stream (documented by
          // the route's @ApiProduces); the JSON schema is the body's.
          if (returned.isUnion()) {
            const parts = returned.types.filter((t) => t.getSymbol()?.getName() !== 'StreamableFile');
            if (parts.length === 1 && parts.length < returned.types.length) returned = parts[0];
          }
          const writesResponse = member.parameters.some(
            (p) => decoratorNames(p).includes('Res') && !p.getText().includes('passthrough'),
          );
          const schema = writesResponse ? undefined : convert(returned);
          operations[`${node.name.text}_${member.name.getText()}`] = schema ?? null;
        }
      }
    });
  }
  return { operations, schemas };
}

module.exports = { responseSchemas };
