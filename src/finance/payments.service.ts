import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import type { PaymentDto } from './dto/payment.dto.js';
import { paymentResource } from './finance.representation.js';
import { Payment } from './payment.entity.js';

@Injectable()
export class PaymentsService extends ReadResourceService<Payment, PaymentDto> {
  protected readonly resource = 'payments';

  constructor(@InjectRepository(Payment) repository: Repository<Payment>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(payment: Payment): PaymentDto {
    return paymentResource(payment);
  }
}
