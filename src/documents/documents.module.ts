import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Document } from './document.entity.js';
import { DocumentsDemoSeeder } from './documents-demo.seeder.js';

/** Documents: metadata of stored files (read-only through the API; never file contents). */
@Module({
  imports: [TypeOrmModule.forFeature([Document])],
  providers: [DocumentsDemoSeeder],
  exports: [DocumentsDemoSeeder],
})
export class DocumentsModule {}
