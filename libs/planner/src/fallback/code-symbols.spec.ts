import { schemaProperties } from '../plan/schema-introspection.util';
import { codeSymbols, isSymbolProperty, symbolFor } from './code-symbols';

// A code search tool, invented: where a name is defined and the path between two names.
const TRACE = schemaProperties({
  type: 'object',
  properties: {
    mode: { type: 'string', enum: ['definition', 'path'] },
    from: { type: 'string', description: 'The function or class to start from.' },
    to: { type: 'string', description: 'path: the function to reach.' },
    repo: { type: 'string', description: 'Repository name.' },
  },
});

describe('names in code', () => {
  it('reads snake_case, camelCase and PascalCase names, with a Korean particle after them', () => {
    expect(codeSymbols('handle_checkout에서 chargeCard 까지, and PaymentGateway')).toEqual([
      'handle_checkout',
      'chargeCard',
      'PaymentGateway',
    ]);
    expect(codeSymbols('where is the login page defined')).toEqual([]);
  });

  it('fills the inputs that take a function or class name, in the order the names are given', () => {
    expect(TRACE.map(isSymbolProperty)).toEqual([false, true, true, false]);
    const symbols = codeSymbols('call path from create_order to send_email');
    expect(symbolFor(TRACE[1], TRACE, symbols)).toBe('create_order');
    expect(symbolFor(TRACE[2], TRACE, symbols)).toBe('send_email');
    expect(symbolFor(TRACE[2], TRACE, codeSymbols('callers of saveOrder'))).toBeNull();
  });
});
