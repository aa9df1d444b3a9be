import { Injectable } from '@nestjs/common';
import { DocumentSearchService } from '@app/documents';
import { DocumentMatcher } from './document-signal';

/** The document search refuses very long queries; a question is matched by its start. */
const MAX_QUERY_CHARS = 1000;

/**
 * The planner's document signal from the tenant's document store: a keyword (full-text) search, the
 * cheap branch (no embedding call), tenant-scoped and cached by @app/documents. Only passage texts leave.
 */
@Injectable()
export class DocumentSearchMatcher extends DocumentMatcher {
  constructor(private readonly documents: DocumentSearchService) {
    super();
  }

  async passages(tenantId: string, query: string, limit: number): Promise<string[]> {
    const response = await this.documents.search(tenantId, {
      query: query.slice(0, MAX_QUERY_CHARS),
      search_type: 'text',
      top_k: limit,
    });
    return response.results.map((hit) => hit.chunk_text);
  }
}
