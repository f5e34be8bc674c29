import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { Bill } from './bill.entity.js';
import type { BillDto } from './dto/bill.dto.js';
import { billResource } from './finance.representation.js';

@Injectable()
export class BillsService extends ReadResourceService<Bill, BillDto> {
  protected readonly resource = 'bills';

  constructor(@InjectRepository(Bill) repository: Repository<Bill>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(bill: Bill): BillDto {
    return billResource(bill);
  }
}
