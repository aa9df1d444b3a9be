import { promptArguments, renderPrompt } from './mcp-content.service';

describe('MCP prompts from prompt assets', () => {
  const content = {
    template: 'Check {{service}} for {{ input.audience }}; again {{service}}. {{ not a name }}',
    input_schema: {
      type: 'object',
      required: ['service'],
      properties: { service: { type: 'string', description: 'The service' }, region: { type: 'string' } },
    },
  };

  it('lists the input_schema properties, then placeholders the schema does not name', () => {
    expect(promptArguments(content)).toEqual([
      { name: 'service', description: 'The service', required: true },
      { name: 'region', required: false },
      { name: 'audience', required: false },
    ]);
    expect(promptArguments({ template: 'no placeholders', input_schema: null })).toEqual([]);
  });

  it('fills placeholders with the arguments, a missing one with nothing, and leaves other braces alone', () => {
    expect(renderPrompt(content.template, { service: 'db', audience: '{{service}}' })).toBe(
      'Check db for {{service}}; again db. {{ not a name }}',
    );
    expect(renderPrompt('Hi {{name}}!', {})).toBe('Hi !');
  });
});
