import { ApiProperty } from '@nestjs/swagger';
import { Scope } from '../../platform/catalog/scopes.js';

export class EventTypeDto {
  @ApiProperty({ example: 'fin.invoice.created' })
  type: string;

  @ApiProperty({ example: 'A draft invoice was created. data: the Invoice.' })
  description: string;

  @ApiProperty({ enum: Object.values(Scope), example: Scope.FinInvoicesRead, description: 'The scope a key needs to subscribe an endpoint to this type (`int:*`: no read endpoint).' })
  scope: string;

  @ApiProperty({ description: 'Delivered only to endpoints enabled for personal data.', example: false })
  personal_data: boolean;

  @ApiProperty({ type: 'object', additionalProperties: true, description: 'JSON Schema (2020-12) of the envelope’s `data` for this type, self-contained.' })
  schema: Record<string, unknown>;
}

/** The page envelope of every list (spec 2), holding the whole catalogue: one page. */
export class EventTypeListDto {
  @ApiProperty({ type: [EventTypeDto] })
  data: EventTypeDto[];

  @ApiProperty({ type: String, nullable: true, description: 'Always null: the catalogue is one page.', example: null })
  next_cursor: null;

  @ApiProperty({ description: 'Always false: the catalogue is one page.', example: false })
  has_more: false;
}
