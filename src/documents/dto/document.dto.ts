import { ApiProperty } from '@nestjs/swagger';
import { DOCUMENT_OWNER_TYPES, type DocumentOwnerType } from '../document.entity.js';

/** Metadata of a stored file (GET /v1/documents); the API never serves file contents. */
export class DocumentDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'File name as uploaded.', example: 'registration-certificate.pdf' })
  file_name: string;

  @ApiProperty({ description: 'Media type (RFC 6838).', example: 'application/pdf' })
  mime_type: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Size of the file in bytes.' })
  size_bytes: number;

  @ApiProperty({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the file contents, lower-case hex.' })
  checksum_sha256: string;

  @ApiProperty({ enum: DOCUMENT_OWNER_TYPES, description: 'Kind of record the document is attached to.' })
  owner_type: DocumentOwnerType;

  @ApiProperty({ format: 'uuid', description: 'Id of that record (e.g. a vehicle of GET /v1/vehicles for owner_type `vehicle`).' })
  owner_id: string;

  @ApiProperty({ format: 'date-time', description: 'When the upload completed.' })
  uploaded_at: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}
