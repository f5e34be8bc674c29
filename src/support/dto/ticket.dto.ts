import { ApiProperty } from '@nestjs/swagger';
import { TICKET_CHANNELS, TICKET_PRIORITIES, TICKET_STATUSES, type TicketChannel, type TicketPriority, type TicketStatus } from '../ticket.entity.js';

/** A customer support request (GET /v1/tickets). The requester's contact details are personal data. */
export class TicketDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Human-readable number, unique in the company.', example: 'TCK-000815' })
  number: string;

  @ApiProperty({ example: 'Fuel card declined at the station' })
  subject: string;

  @ApiProperty({
    enum: TICKET_STATUSES,
    description: '`pending`: waiting for the requester; `on_hold`: waiting for a third party; `solved` and `closed` have solved_at.',
  })
  status: TicketStatus;

  @ApiProperty({ enum: TICKET_PRIORITIES })
  priority: TicketPriority;

  @ApiProperty({ enum: TICKET_CHANNELS, description: 'How the request came in.' })
  channel: TicketChannel;

  @ApiProperty({ type: String, nullable: true, example: 'Lena Fischer' })
  requester_name: string | null;

  @ApiProperty({ format: 'email', example: 'lena.fischer@example.com' })
  requester_email: string;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The employee working on it (an id of GET /v1/employees); null while unassigned.' })
  assignee_id: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'First agent reply; null while none.' })
  first_response_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: null, description: 'Set exactly when status is `solved` or `closed`.' })
  solved_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
