/*
** parley_bm25: FTS5's bm25 with the document frequencies given by the caller.
**
** FTS5's own bm25() weighs each phrase of a query by an IDF it computes by running that phrase
** over the whole index (xQueryPhrase) on every search: for a word in half of 100k chunks that
** walk costs more than all the rest of the search. Parley already knows every phrase's document
** frequency (the fts5vocab table, cached), so it passes them in and this function only scores
** the rows the MATCH found. The formula is bm25()'s (k1 = 1.2, b = 0.75, the same IDF floor).
**
**   parley_bm25(fts, nLength, k, weight_0, ..., weight_{nCol-1}, df_0, ..., df_{nPhrase-1})
**
** nLength: the leading columns that make a row's length (columns after them, such as an
** indexed-pairs column, add matches but not length). weight_i: column i's weight, as bm25().
** df_i: rows holding phrase i (phrases numbered in the order they appear in the MATCH text).
** Returns -score, as bm25() does (lower is better), so `ORDER BY rank` works unchanged.
**
** k: the query's LIMIT (0: no limit). Reading a row's length (xColumnSize, a b-tree lookup in
** %_docsize) is most of the cost of scoring a row, so the function keeps the k best scores seen
** so far and first bounds a row's score from above with the shortest length it could have (its
** own matches); a row whose bound is below the k-th best cannot be among the k results, and
** gets the bound instead of its exact score, without the lookup. The k rows returned carry
** exact scores, in exact order; only rows past the LIMIT may carry a bound. So k must be the
** LIMIT of an `ORDER BY rank LIMIT k` over this very function, or 0.
**
** Changing the arguments means a new function name (parley_bm25_v2): a library built from an
** older file may still be loaded, and chunks.repository.ts would then misuse it.
**
** Built by build.mjs at install; when it cannot be built or loaded, the
** search falls back to bm25() with nearly the same results, only slower (chunks.repository.ts).
*/
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct RankData {
  int nCol;
  int nPhrase;
  int nLength;
  int k;           /* size of the best-scores heap; 0: no pruning */
  int nBest;       /* scores in the heap */
  sqlite3_int64 iLastRowid; /* the row last scored: a second call for it must not enter the heap twice */
  int bScored;
  double avgdl;
  double *aWeight; /* nCol */
  double *aIdf;    /* nPhrase */
  double *aFreq;   /* nPhrase, scratch per row */
  double *aBest;   /* k: a min-heap of the best exact scores so far */
} RankData;

/* Adds a score to the min-heap of the k best (the smallest of them at aBest[0]). */
static void bestAdd(RankData *p, double score) {
  double *h = p->aBest;
  int i;
  if (p->nBest < p->k) {
    i = p->nBest++;
    while (i > 0 && h[(i - 1) / 2] > score) {
      h[i] = h[(i - 1) / 2];
      i = (i - 1) / 2;
    }
    h[i] = score;
    return;
  }
  if (score <= h[0]) return;
  /* Replace the smallest and sift down. */
  i = 0;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;
    double vm = score;
    if (l < p->nBest && h[l] < vm) { m = l; vm = h[l]; }
    if (r < p->nBest && h[r] < vm) { m = r; vm = h[r]; }
    if (m == i) break;
    h[i] = h[m];
    i = m;
  }
  h[i] = score;
}

static void rankDataFree(void *p) { sqlite3_free(p); }

static int rankData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, int nVal, sqlite3_value **apVal,
                    RankData **ppOut, const char **pzErr) {
  RankData *p = (RankData *)pApi->xGetAuxdata(pFts, 0);
  if (p) {
    *ppOut = p;
    return SQLITE_OK;
  }
  int nCol = pApi->xColumnCount(pFts);
  int nPhrase = pApi->xPhraseCount(pFts);
  if (nVal != 2 + nCol + nPhrase) {
    *pzErr = "parley_bm25: wrong number of arguments (nLength, k, one weight per column, one df per phrase)";
    return SQLITE_ERROR;
  }
  int nLength = sqlite3_value_int(apVal[0]);
  if (nLength < 1 || nLength > nCol) {
    *pzErr = "parley_bm25: nLength out of range";
    return SQLITE_ERROR;
  }
  sqlite3_int64 k = sqlite3_value_int64(apVal[1]);
  if (k < 0 || k > 100000) {
    *pzErr = "parley_bm25: k out of range (0 to 100000)";
    return SQLITE_ERROR;
  }
  sqlite3_int64 nByte = sizeof(RankData) + sizeof(double) * (nCol + 2 * (sqlite3_int64)nPhrase + k);
  p = (RankData *)sqlite3_malloc64(nByte);
  if (!p) return SQLITE_NOMEM;
  memset(p, 0, nByte);
  p->nCol = nCol;
  p->nPhrase = nPhrase;
  p->nLength = nLength;
  p->aWeight = (double *)&p[1];
  p->aIdf = &p->aWeight[nCol];
  p->aFreq = &p->aIdf[nPhrase];
  p->aBest = &p->aFreq[nPhrase];
  p->k = (int)k;

  sqlite3_int64 nRow = 0;
  sqlite3_int64 nToken = 0;
  int rc = pApi->xRowCount(pFts, &nRow);
  for (int i = 0; rc == SQLITE_OK && i < nLength; i++) {
    sqlite3_int64 n = 0;
    rc = pApi->xColumnTotalSize(pFts, i, &n);
    nToken += n;
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(p);
    return rc;
  }
  p->avgdl = nRow > 0 && nToken > 0 ? (double)nToken / (double)nRow : 1.0;
  for (int i = 0; i < nCol; i++) p->aWeight[i] = sqlite3_value_double(apVal[2 + i]);
  for (int i = 0; i < nPhrase; i++) {
    double nHit = sqlite3_value_double(apVal[2 + nCol + i]);
    if (nHit < 0) nHit = 0;
    if (nHit > (double)nRow) nHit = (double)nRow;
    /* bm25()'s IDF, with its floor: a phrase in more than half the rows still counts a little. */
    double idf = log(((double)nRow - nHit + 0.5) / (nHit + 0.5));
    p->aIdf[i] = idf <= 0.0 ? 1e-6 : idf;
  }
  rc = pApi->xSetAuxdata(pFts, p, rankDataFree);
  if (rc != SQLITE_OK) return rc; /* xSetAuxdata frees p on failure */
  *ppOut = p;
  return SQLITE_OK;
}

static void parleyBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal,
                       sqlite3_value **apVal) {
  const double k1 = 1.2;
  const double b = 0.75;
  RankData *p = 0;
  const char *zErr = 0;
  int rc = rankData(pApi, pFts, nVal, apVal, &p, &zErr);
  if (zErr) {
    sqlite3_result_error(pCtx, zErr, -1);
    return;
  }
  int nInst = 0;
  int nInLength = 0; /* matches inside the length columns: the row is at least this long */
  if (rc == SQLITE_OK) rc = pApi->xInstCount(pFts, &nInst);
  if (rc == SQLITE_OK) {
    memset(p->aFreq, 0, sizeof(double) * p->nPhrase);
    for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
      int ip, ic, io;
      rc = pApi->xInst(pFts, i, &ip, &ic, &io);
      if (rc == SQLITE_OK && ip >= 0 && ip < p->nPhrase && ic >= 0 && ic < p->nCol) {
        p->aFreq[ip] += p->aWeight[ic];
        if (ic < p->nLength) nInLength++;
      }
    }
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  sqlite3_int64 iRowid = pApi->xRowid(pFts);
  int bRepeat = p->bScored && iRowid == p->iLastRowid;
  if (p->k > 0 && p->nBest == p->k) {
    /* The score can only be lower for a longer row: bound it with the shortest possible. */
    double bound = 0.0;
    double norm = k1 * (1 - b + b * (double)nInLength / p->avgdl);
    for (int i = 0; i < p->nPhrase; i++) {
      double f = p->aFreq[i];
      if (f > 0) bound += p->aIdf[i] * ((f * (k1 + 1.0)) / (f + norm));
    }
    if (bound < p->aBest[0]) {
      sqlite3_result_double(pCtx, -1.0 * bound);
      return;
    }
  }
  double D = 0;
  for (int i = 0; rc == SQLITE_OK && i < p->nLength; i++) {
    int n = 0;
    rc = pApi->xColumnSize(pFts, i, &n);
    D += n;
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  double score = 0.0;
  double norm = k1 * (1 - b + b * D / p->avgdl);
  for (int i = 0; i < p->nPhrase; i++) {
    double f = p->aFreq[i];
    if (f > 0) score += p->aIdf[i] * ((f * (k1 + 1.0)) / (f + norm));
  }
  if (p->k > 0 && !bRepeat) bestAdd(p, score);
  p->iLastRowid = iRowid;
  p->bScored = 1;
  sqlite3_result_double(pCtx, -1.0 * score);
}

static fts5_api *fts5Api(sqlite3 *db) {
  fts5_api *pRet = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pRet, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pRet;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_parleyrank_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  fts5_api *api = fts5Api(db);
  if (!api || api->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("parley_rank: this SQLite has no FTS5");
    return SQLITE_ERROR;
  }
  return api->xCreateFunction(api, "parley_bm25", 0, parleyBm25, 0);
}
