import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import { DomainException } from '../errors/domain.exception.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

/** Path ids must be UUID-shaped: anything else is a 422 invalid_input, never a database error. */
@Injectable()
export class UuidPipe implements PipeTransform<unknown, string> {
  transform(value: unknown, metadata?: ArgumentMetadata): string {
    const field = metadata?.data ?? 'id';
    if (!isUuid(value)) throw new DomainException('InvalidInput', `The ${field} in the path is not a UUID.`, { field, code: 'invalid_format' });
    return value.toLowerCase();
  }
}
