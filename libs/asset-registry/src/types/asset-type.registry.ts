import { Injectable } from '@nestjs/common';
import type { SpecField } from '../asset.types';

/** An asset type's name (`tool`, `catalog`, ...): one the lib that owns the type registered. */
export type AssetType = string;

export type AssetSchema = Record<string, unknown>;

/** What the registry knows of one asset type: its fields, their JSON Schema and its names. */
export interface AssetTypeDefinition {
  type: AssetType;
  /** The type-specific fields an asset of this type carries (any other must be absent). */
  fields: readonly SpecField[];
  /**
   * The JSON Schema of those fields, checked on every save; a function when it depends on what other
   * modules register (the tool type's configs follow the registered tool kinds), read on first use.
   */
  schema: AssetSchema | (() => AssetSchema);
  /** Names of this type (default `ASSET_NAME_PATTERN`); tools are called by name, so theirs are stricter. */
  namePattern?: RegExp;
}

/** Asset names unless the type says otherwise. */
export const ASSET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;

/** A type whose fields are one JSON document, `content` (catalog, mapping, policy, stage, ...). */
export function contentAssetType(type: AssetType, title: string, content: AssetSchema): AssetTypeDefinition {
  return {
    type,
    fields: ['content'],
    schema: { title, type: 'object', required: ['content'], properties: { content } },
  };
}

/**
 * The asset types this application stores, each registered by the lib that owns it on init (the asset
 * registry its catalog and source, the tools lib its tools, stages and policies, ...), like tool kinds in
 * the tools lib's `ToolKindRegistry`. The registry refuses an asset of a type nobody registered.
 */
@Injectable()
export class AssetTypeRegistry {
  private readonly definitions = new Map<AssetType, AssetTypeDefinition>();

  register(definition: AssetTypeDefinition): void {
    const existing = this.definitions.get(definition.type);
    // A second definition of a type means two libs claim it, or a module loaded twice.
    if (existing && existing !== definition)
      throw new Error(`The "${definition.type}" asset type is already registered.`);
    this.definitions.set(definition.type, definition);
  }

  definition(type: AssetType): AssetTypeDefinition | undefined {
    return this.definitions.get(type);
  }

  has(type: AssetType): boolean {
    return this.definitions.has(type);
  }

  /** The registered types, sorted. */
  types(): AssetType[] {
    return [...this.definitions.keys()].sort();
  }

  /** Each registered type's JSON Schema (`GET /api/assets/schemas`). */
  schemas(): Record<AssetType, AssetSchema> {
    return Object.fromEntries(this.types().map((type) => [type, this.schemaOf(this.definitions.get(type)!)]));
  }

  schemaOf(definition: AssetTypeDefinition): AssetSchema {
    return typeof definition.schema === 'function' ? definition.schema() : definition.schema;
  }
}
