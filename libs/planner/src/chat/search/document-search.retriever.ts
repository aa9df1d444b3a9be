import { Injectable } from '@nestjs/common';
import { DocumentSearchService } from '@app/documents';
import { DocumentRetriever } from './document-retriever';
import type { Passage } from './passage';

/** Long questions are searched by their start; the document search refuses very long queries. */
const MAX_QUERY_CHARS = 1000;

/** The chat's document search: hybrid (keyword + vector, fused) search of @app/documents. */
@Injectable()
export class DocumentSearchRetriever extends DocumentRetriever {
  constructor(private readonly documents: DocumentSearchService) {
    super();
  }

  async search(
    tenantId: string,
    query: string,
    topK: number,
  ): Promise<Array<Extract<Passage, { kind: 'document' }>>> {
    const response = await this.documents.search(tenantId, {
      query: query.slice(0, MAX_QUERY_CHARS),
      search_type: 'hybrid',
      top_k: topK,
    });
    return response.results.map((hit) => ({
      kind: 'document' as const,
      document_id: hit.document_id,
      document_name: hit.document_name,
      chunk_id: hit.chunk_id,
      chunk_index: hit.chunk_index,
      page: hit.page_number ?? hit.slide_number,
      score: hit.relevance_score,
      text: hit.chunk_text,
    }));
  }
}
