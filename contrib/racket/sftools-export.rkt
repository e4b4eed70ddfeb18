#lang racket/base
;; sftools-export.rkt - write the samples of Racket's profiler (profile-lib)
;; as an sftools native JSON profile ("sftools-profile" version 1, see
;; docs/formats.md, section "json", and docs/profile.schema.json), which
;; sfconv converts and sfanalyze reports on.
;;
;; Usage:
;;
;;   (require profile/sampler "contrib/racket/sftools-export.rkt")
;;   (define sampler (create-sampler (current-thread) 0.001))
;;   (my-workload)
;;   (sampler 'stop)
;;   (write-sftools-samples (sampler 'get-snapshots) "profile.json")
;;
;; then `sfanalyze --callgraph --timestamps profile.json`, which prints
;; the nodes, order, totals, selfs and percentages Racket's
;; profile/render-text prints for the same snapshots (docs/racket.md).
;;
;; `snapshots` is what (sampler 'get-snapshots) returns, the input of
;; analyze-samples: (cons CPU-TIME SAMPLES), SAMPLES newest first, each
;; (THREAD-ID THREAD-MILLISECONDS . STACK), STACK innermost first, each
;; frame a pair (NAME-OR-#f . SRCLOC-OR-#f).
;;
;; The document: one sample per snapshot, oldest first, weight 1 in
;; ("samples", "count"), its time the thread's CPU milliseconds in
;; nanoseconds; one thread per Racket thread id (tid = the id, name
;; "racket-ID"); per frame the name Racket's renderer shows (the name, or
;; "???"), and the source location as file, line and column (1-based,
;; Racket's column + 1; a location without a line keeps its position in
;; the name).  Racket keys a node by name and location, sftools by name:
;; when one name has several locations, each such frame is named "NAME
;; FILE:LINE:COL" as the renderer writes it, so the nodes stay apart.  The
;; sampler's CPU time is the property "racket.cpu-time-ms".
(require racket/list json)

(provide write-sftools-samples)

;; What render-text prints for a frame: its label and its source.
(define (label frame)
  (format "~a" (or (car frame) '???)))
(define (source src)
  (if src
      (format "~a:~a" (srcloc-source src)
              (if (srcloc-line src)
                  (format "~a:~a" (srcloc-line src) (srcloc-column src))
                  (format "#~a" (srcloc-position src))))
      "(unknown source)"))

(define (write-sftools-samples snapshots path #:exists [exists 'replace])
  (define (snapshot? s)
    (and (pair? s) (exact-nonnegative-integer? (car s))
         (pair? (cdr s)) (real? (cadr s))
         (list? (cddr s)) (andmap pair? (cddr s))))
  (unless (and (pair? snapshots) (real? (car snapshots))
               (list? (cdr snapshots)) (andmap snapshot? (cdr snapshots)))
    (raise-argument-error 'write-sftools-samples
                          "(cons cpu-time snapshots), from (sampler 'get-snapshots)"
                          snapshots))
  (define samples (reverse (cdr snapshots)))   ; oldest first
  ;; frames: one per distinct (name . srcloc), as the analyzer keys them
  (define frame-index (make-hash))             ; (label . source) -> index
  (define frames '())                          ; jsexprs, newest first
  (define labels (make-hash))                  ; label -> set of sources
  (for* ([s (in-list samples)] [f (in-list (cddr s))])
    (hash-update! labels (label f) (λ (h) (hash-set h (source (cdr f)) #t))
                  (hash)))
  (define (frame-id f)
    (define l (label f))
    (define src (cdr f))
    (define key (cons l (source src)))
    (hash-ref! frame-index key
               (λ ()
                 (define name
                   (if (> (hash-count (hash-ref labels l)) 1)
                       (string-append l " " (source src))
                       l))
                 (define j
                   (for/fold ([j (hasheq 'name name)])
                             ([k (in-list '(file line column))]
                              [v (in-list
                                  (if (srcloc? src)
                                      (list (let ([s (srcloc-source src)])
                                              (and s (format "~a" s)))
                                            (srcloc-line src)
                                            (and (srcloc-line src)
                                                 (srcloc-column src)
                                                 (add1 (srcloc-column src))))
                                      '(#f #f #f)))]
                              #:when v)
                     (hash-set j k v)))
                 (set! frames (cons j frames))
                 (sub1 (length frames)))))
  ;; stack nodes: node k+1 is stacks[k] = [parent, frame]
  (define node-index (make-hash))              ; (parent . frame) -> node
  (define stacks '())
  (define (node parent fr)
    (hash-ref! node-index (cons parent fr)
               (λ ()
                 (set! stacks (cons (list parent fr) stacks))
                 (length stacks))))
  (define threads (make-hasheqv))              ; racket id -> index
  (define thread-list '())
  (define (thread-index id)
    (hash-ref! threads id
               (λ ()
                 (set! thread-list
                       (cons (hasheq 'tid id
                                     'name (format "racket-~a" id))
                             thread-list))
                 (sub1 (length thread-list)))))
  (define rows
    (for/list ([s (in-list samples)])
      (define stack
        (for/fold ([n 0]) ([f (in-list (reverse (cddr s)))])
          (node n (frame-id f))))
      (list stack (thread-index (car s))
            (inexact->exact (round (* (cadr s) 1000000))) 0 1)))
  (define doc
    (hasheq 'format "sftools-profile"
            'version 1
            'meta (hasheq 'source_format "racket"
                          'default_sample_type 0
                          'properties
                          (list (list "racket.cpu-time-ms"
                                      (format "~a" (car snapshots)))))
            'sample_types (list (hasheq 'type "samples" 'unit "count"))
            'threads (reverse thread-list)
            'frames (reverse frames)
            'stacks (reverse stacks)
            'samples rows))
  (call-with-output-file path #:exists exists
    (λ (out) (write-json doc out) (newline out)))
  (length rows))
