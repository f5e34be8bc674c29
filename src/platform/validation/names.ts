import { DomainException } from '../errors/domain.exception.js';

/**
 * A name a person gives a company, an API key, a customer or a product: 1-200 characters as
 * PostgreSQL's char_length counts them (an emoji is one), not blank. The tables hold the same
 * rule; checking it first answers with this message rather than the constraint's error.
 */
export function checkedName(name: string): string {
  if (!name.trim() || [...name].length > 200) throw new DomainException('InvalidInput', 'name must be 1-200 characters, not blank', { field: 'name' });
  return name;
}
