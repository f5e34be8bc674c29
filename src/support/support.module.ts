import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SupportDemoSeeder } from './support-demo.seeder.js';
import { Ticket } from './ticket.entity.js';
import { TicketsController } from './tickets.controller.js';
import { TicketsService } from './tickets.service.js';

/** Support: customer tickets (read-only through the API). */
@Module({
  imports: [TypeOrmModule.forFeature([Ticket])],
  controllers: [TicketsController],
  providers: [TicketsService, SupportDemoSeeder],
  exports: [SupportDemoSeeder],
})
export class SupportModule {}
