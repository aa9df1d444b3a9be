import type { PropertyInfo } from '../plan/schema-introspection.util';

/**
 * Names in code the question gives ("create_booking", "saveOrder", "PaymentGateway"), for the inputs of
 * tools that take a function's or a class's name (their description says so). Language knowledge only:
 * how programming languages spell names.
 */
const SNAKE = /^[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+$/;
const CAMEL = /^[a-z]+[A-Z][A-Za-z0-9]*$/;
const PASCAL = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+$/;
const SYMBOL_INPUT = /\b(?:function|class|method|symbol|module)\b|함수|클래스|메서드|메소드|심볼/i;

/** The names in code a question gives, in order, each once. */
export function codeSymbols(query: string): string[] {
  const found: string[] = [];
  for (const raw of query.normalize('NFC').split(/[\s,;:!?()[\]{}"'“”‘’]+/)) {
    // A Korean particle after the name ("handle_checkout에서"), a full stop or a possessive.
    const token = raw.replace(/[\uac00-\ud7a3]+$/, '').replace(/[.。]+$/, '');
    if ((SNAKE.test(token) || CAMEL.test(token) || PASCAL.test(token)) && !found.includes(token))
      found.push(token);
  }
  return found;
}

/** Whether a string input takes a name in code ("The function or class name."). */
export function isSymbolProperty(property: PropertyInfo): boolean {
  const description = typeof property.schema.description === 'string' ? property.schema.description : '';
  return property.type === 'string' && !property.enumValues && SYMBOL_INPUT.test(description);
}

/** The name in code an input takes: the tool's name inputs take the names given, in order. */
export function symbolFor(
  property: PropertyInfo,
  properties: PropertyInfo[],
  symbols: string[],
): string | null {
  const at = properties.filter(isSymbolProperty).indexOf(property);
  return at >= 0 && at < symbols.length ? symbols[at] : null;
}
