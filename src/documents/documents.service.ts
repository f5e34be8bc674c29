import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { Paginator } from '../platform/pagination/paginator.service.js';
import { ReadResourceService } from '../platform/resources/read-resource.service.js';
import { timestamp } from '../platform/resources/representation.js';
import { Document } from './document.entity.js';
import type { DocumentDto } from './dto/document.dto.js';

@Injectable()
export class DocumentsService extends ReadResourceService<Document, DocumentDto> {
  protected readonly resource = 'documents';

  constructor(@InjectRepository(Document) repository: Repository<Document>, @Inject(Paginator) paginator: Paginator) {
    super(repository, paginator);
  }

  toResource(document: Document): DocumentDto {
    return {
      id: document.id,
      file_name: document.fileName,
      mime_type: document.mimeType,
      size_bytes: document.sizeBytes,
      checksum_sha256: document.checksumSha256,
      owner_type: document.ownerType,
      owner_id: document.ownerId,
      uploaded_at: timestamp(document.uploadedAt),
      created_at: timestamp(document.createdAt),
      updated_at: timestamp(document.updatedAt),
    };
  }
}
