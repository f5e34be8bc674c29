import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { TicketDto } from './dto/ticket.dto.js';
import { Ticket } from './ticket.entity.js';

@Injectable()
export class TicketsService extends ReadResourceService<Ticket, TicketDto> {
  protected readonly resource = 'tickets';

  constructor(@InjectRepository(Ticket) repository: Repository<Ticket>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(ticket: Ticket): TicketDto {
    return {
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
    };
  }
}
