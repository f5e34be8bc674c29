import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { TicketDto } from './dto/ticket.dto.js';
import { Ticket } from './ticket.entity.js';

export const ticketsResource = readResource({
  name: 'tickets',
  area: 'support',
  entity: Ticket,
  item: TicketDto,
  scope: Scope.SupportTicketsRead,
  tag: 'Support',
  singular: 'ticket',
  article: 'a',
  description: 'A customer support ticket: number (TCK-…), subject, status, priority, channel, requester name and e-mail, assignee.',
  searchable: ['number', 'subject', 'requester_name', 'requester_email'],
  toResource: (ticket: Ticket): TicketDto => ({
    id: ticket.id,
    number: ticket.number,
    subject: ticket.subject,
    status: ticket.status,
    priority: ticket.priority,
    channel: ticket.channel,
    requester_name: ticket.requesterName,
    requester_email: ticket.requesterEmail,
    assignee_id: ticket.assigneeId,
    first_response_at: timestamp(ticket.firstResponseAt),
    solved_at: timestamp(ticket.solvedAt),
    created_at: timestamp(ticket.createdAt),
    updated_at: timestamp(ticket.updatedAt),
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    TicketDto: TicketDto;
  }
}
