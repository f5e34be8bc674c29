import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import type { LeaveRequestDto } from './dto/leave-request.dto.js';
import { LeaveRequest } from './leave-request.entity.js';

@Injectable()
export class LeaveRequestsService extends ReadResourceService<LeaveRequest, LeaveRequestDto> {
  protected readonly resource = 'leave_requests';

  constructor(@InjectRepository(LeaveRequest) repository: Repository<LeaveRequest>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(request: LeaveRequest): LeaveRequestDto {
    return {
      id: request.id,
      employee_id: request.employeeId,
      type: request.type,
      status: request.status,
      start_date: request.startDate,
      end_date: request.endDate,
      days: request.days,
      approver_id: request.approverId,
      decided_at: timestamp(request.decidedAt),
      created_at: timestamp(request.createdAt),
      updated_at: timestamp(request.updatedAt),
    };
  }
}
