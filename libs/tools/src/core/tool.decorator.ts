import { applyDecorators, Injectable, SetMetadata } from '@nestjs/common';

export const BUILTIN_TOOL = 'tools:builtin';

/** Marks a provider implementing `Tool` as a built-in tool; the registry discovers it at bootstrap. */
export const BuiltinTool = (): ClassDecorator =>
  applyDecorators(Injectable(), SetMetadata(BUILTIN_TOOL, true));
