import { Scope } from '../platform/catalog/scopes.js';
import { readResource } from '../platform/resources/read-resource.js';
import { timestamp } from '../platform/resources/representation.js';
import { DocumentDto } from './dto/document.dto.js';
import { Document } from './document.entity.js';

export const documentsResource = readResource({
  name: 'documents',
  area: 'documents',
  entity: Document,
  item: DocumentDto,
  scope: Scope.FilesDocumentsRead,
  tag: 'Documents',
  singular: 'document',
  article: 'a',
  description: 'Metadata of a stored file (never its contents): file name, MIME type, size, checksum and the record it belongs to.',
  searchable: ['file_name', 'mime_type', 'owner_type'],
  toResource: (document: Document): DocumentDto => ({
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
  }),
});

declare module '../platform/catalog/event-types.js' {
  interface EventDataModels {
    DocumentDto: DocumentDto;
  }
}
