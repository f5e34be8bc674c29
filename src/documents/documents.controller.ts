import { Controller, Inject, Param } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type AuthContext, CurrentAuth } from '../platform/auth/auth-context.js';
import { Scope } from '../platform/catalog/scopes.js';
import { type Page, type PageRequest, PageParams } from '../platform/pagination/page.js';
import { ListRoute, RetrieveRoute } from '../platform/resources/read-routes.decorator.js';
import { UuidPipe } from '../platform/validation/uuid.pipe.js';
import { DocumentDto } from './dto/document.dto.js';
import { DocumentsService } from './documents.service.js';

@ApiTags('Documents')
@Controller('v1/documents')
export class DocumentsController {
  constructor(@Inject(DocumentsService) private readonly documents: DocumentsService) {}

  @ListRoute(Scope.FilesDocumentsRead, DocumentDto, 'List documents')
  list(@CurrentAuth() auth: AuthContext, @PageParams() page: PageRequest): Promise<Page<DocumentDto>> {
    return this.documents.list(auth.tenantId, page);
  }

  @RetrieveRoute(Scope.FilesDocumentsRead, DocumentDto, 'Retrieve a document')
  retrieve(@CurrentAuth() auth: AuthContext, @Param('id', UuidPipe) id: string): Promise<DocumentDto> {
    return this.documents.get(auth.tenantId, id);
  }
}
