/** Marks the mappings made from a tool's hint keywords (evidence for the tool, not a tenant mapping rule). */
export const HINT_KEYWORD = 'planning hint keyword';
