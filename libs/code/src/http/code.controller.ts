import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, Principal, RequireRole } from '@app/platform';
import type { CodeFileView, CodeSymbolDetail, CodeSymbolView, RepositoryView } from '../code.types';
import { CodeQueryService } from '../search/code-query.service';
import { FileQueryDto, RepositoryQueryDto, SymbolDetailQueryDto, SymbolQueryDto } from './code.dto';

/**
 * The code index for people: a reader of the tenant sees every user's repositories (filter with
 * `user_id`); services act for one user through the tools.
 */
@ApiTags('code')
@ApiBearerAuth()
@RequireRole('reader')
@Controller('api/code')
export class CodeController {
  constructor(private readonly code: CodeQueryService) {}

  @Get('repositories')
  @ApiOperation({ summary: 'Code repositories of the tenant (or of one user)' })
  repositories(
    @Query() query: RepositoryQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<RepositoryView[]> {
    return this.code.listRepositories(principal.tenantId, query.user_id ?? null);
  }

  @Get('repositories/:id/symbols')
  @ApiOperation({ summary: 'Classes, functions and files whose name contains q' })
  symbols(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query() query: SymbolQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CodeSymbolView[]> {
    return this.code.symbols(principal.tenantId, id, query.q ?? '', query.limit ?? 50);
  }

  @Get('repositories/:id/files')
  @ApiOperation({ summary: 'Files under a directory, or one file with its current text' })
  files(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query() query: FileQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CodeFileView[]> {
    return this.code.files(principal.tenantId, id, query.path ?? null, query.limit ?? 1000);
  }

  @Get('symbols/:id')
  @ApiOperation({ summary: 'A symbol with its callers, callees, file imports and inheritance' })
  symbol(
    @Param('id', new ParseUUIDPipe()) id: string,
    @Query() query: SymbolDetailQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<CodeSymbolDetail> {
    return this.code.symbol(principal.tenantId, id, query.depth ?? 1);
  }
}
