import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SupportDemoSeeder } from './support-demo.seeder.js';
import { Ticket } from './ticket.entity.js';

/** Support: customer tickets (read-only through the API). */
@Module({
  imports: [TypeOrmModule.forFeature([Ticket])],
  providers: [SupportDemoSeeder],
  exports: [SupportDemoSeeder],
})
export class SupportModule {}
