import { Injectable } from '@nestjs/common';
import { DocumentSearchService } from '@app/documents';
import { ChatOptions } from '../chat-options';
import { DocumentRetriever } from './document-retriever';
import type { Passage } from './passage';

/** Long questions are searched by their start; the document search refuses very long queries. */
const MAX_QUERY_CHARS = 1000;

/**
 * The chat's document search: hybrid (keyword + vector, fused) search of @app/documents, with the seed's
 * similarity filter. The fused score is relative to the query's best hit (an off-topic question's top hit
 * scores as high as a good one), so the floor looks at the branches' own scores, which are absolute: a
 * passage is cited when its vector cosine similarity reaches `minRelevance` OR its keyword score (the share
 * of the whole question's BM25 it matches, terms the corpus lacks included) reaches `minKeywordRelevance`,
 * so a strong keyword hit is never dropped for a weak (offline, hashed) vector score. Skipped when the
 * search ran without a query vector.
 */
@Injectable()
export class DocumentSearchRetriever extends DocumentRetriever {
  constructor(
    private readonly documents: DocumentSearchService,
    private readonly options: ChatOptions,
  ) {
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
    const floor = response.embedding_model ? this.options.minRelevance : 0;
    const keywordFloor = this.options.minKeywordRelevance;
    const relevant = response.results.filter(
      (hit) =>
        (hit.branches.vector?.score ?? 0) >= floor ||
        (keywordFloor > 0 && (hit.branches.text?.score ?? 0) >= keywordFloor),
    );
    return relevant.map((hit) => ({
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
