import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Document } from './document.entity.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsDemoSeeder } from './documents-demo.seeder.js';
import { DocumentsService } from './documents.service.js';

/** Documents: metadata of stored files (read-only through the API; never file contents). */
@Module({
  imports: [TypeOrmModule.forFeature([Document])],
  controllers: [DocumentsController],
  providers: [DocumentsService, DocumentsDemoSeeder],
  exports: [DocumentsDemoSeeder],
})
export class DocumentsModule {}
