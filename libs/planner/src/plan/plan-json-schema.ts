/** The JSON Schema the model's output must follow (structured output / tool call arguments). */
export function planJsonSchema(toolNames: string[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: {
      intent: { type: 'string', description: 'Short name of what the user wants, e.g. query_metrics.' },
      steps: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', description: 'Unique step id such as s1.' },
            tool_type: { type: 'string', enum: toolNames },
            source: {
              type: 'string',
              description:
                'The data source the tool reads, as listed with the tool (omit for tools without one).',
            },
            parameters: { type: 'object', description: 'Input for the tool, following its input schema.' },
            depends_on: { type: 'array', items: { type: 'string' } },
            purpose: { type: 'string' },
          },
          required: ['id', 'tool_type', 'parameters'],
        },
      },
    },
    required: ['intent', 'steps'],
  };
}
