import { DefaultNamingStrategy, NamingStrategyInterface } from 'typeorm';

const snake = (value: string): string => value.replace(/([a-z\d])([A-Z])/g, '$1_$2').toLowerCase();

/** Entity properties stay camelCase in TypeScript; columns are snake_case in SQL. */
export class SnakeNamingStrategy extends DefaultNamingStrategy implements NamingStrategyInterface {
  override columnName(
    propertyName: string,
    customName: string | undefined,
    embeddedPrefixes: string[],
  ): string {
    return snake([...embeddedPrefixes, customName ?? propertyName].join('_'));
  }

  override relationName(propertyName: string): string {
    return snake(propertyName);
  }

  override joinColumnName(relationName: string, referencedColumnName: string): string {
    return snake(`${relationName}_${referencedColumnName}`);
  }
}
