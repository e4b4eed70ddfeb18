#lang racket/base
;; callgraph-racket.rkt - the reference: Racket's own profile/analyzer
;; (analyze-samples) on a sample-lines file, printed as the JSON of
;; `sfanalyze --callgraph --json` but with exact numbers (an integer, or a
;; string "N/D" for a fraction), so tests/analyze/cg_racket.py can compare
;; every value and every order with sfanalyze's output.
;;
;;     racket bench/callgraph-racket.rkt FILE.samples.tsv
;;
;; Input: THREAD<TAB>1<TAB>root;...;leaf, thread ids small integers.  The
;; analyzer takes timestamped snapshots and weighs them by the midpoint
;; rule (callgraph.md 2.1), so every weight must be 1 (timestamps 0, 1,
;; 2, ... per thread give every sample 1) and every thread needs two
;; samples or more; anything else is refused.  Frames are keyed by name:
;; one (name . #f) pair per distinct name, as the analyzer compares frames
;; with eq?.
(require profile/analyzer racket/string racket/list)

(define file (vector-ref (current-command-line-arguments) 0))
(define frames (make-hash))
(define (frame name)
  (hash-ref! frames name (λ () (cons name #f))))
(define clock (make-hasheqv))          ; thread -> next timestamp
(define snapshots '())                 ; newest first, as the sampler keeps
(define n 0)

(call-with-input-file file
  (λ (in)
    (for ([line (in-lines in)])
      (set! n (add1 n))
      (define f (string-split line "\t" #:trim? #f))
      (unless (and (= (length f) 3) (equal? (cadr f) "1"))
        (error 'callgraph-racket "~a:~a: want THREAD<TAB>1<TAB>STACK"
               file n))
      (define tid (string->number (car f)))
      (define t (hash-ref clock tid 0))
      (hash-set! clock tid (add1 t))
      (define stack (if (string=? (caddr f) "")
                        '()
                        (map frame (string-split (caddr f) ";" #:trim? #f))))
      (set! snapshots (cons (list* tid t (reverse stack)) snapshots)))))
(for ([(tid c) (in-hash clock)])
  (when (< c 2)
    (error 'callgraph-racket "thread ~a has fewer than two samples" tid)))

(define p (analyze-samples (cons 0 snapshots)))

(define out (current-output-port))
(define (num x)
  (if (integer? x)
      (write x out)
      (fprintf out "\"~a/~a\"" (numerator x) (denominator x))))
(define (str s)
  (write-string "\"" out)
  (for ([c (in-string s)])
    (cond [(char=? c #\") (write-string "\\\"" out)]
          [(char=? c #\\) (write-string "\\\\" out)]
          [(char<? c #\space) (fprintf out "\\u~a"
                                       (string-pad (number->string
                                                    (char->integer c) 16)))]
          [else (write-char c out)]))
  (write-string "\"" out))
(define (string-pad s)
  (string-append (make-string (- 4 (string-length s)) #\0) s))
(define (id nd)
  (if (node-id nd) (str (node-id nd)) (write-string "null" out)))
(define (edges es other)
  (write-string "[" out)
  (for ([e (in-list es)] [i (in-naturals)])
    (unless (zero? i) (write-string "," out))
    (write-string "{\"id\":" out)
    (id (other e))
    (write-string ",\"total\":" out) (num (edge-total e))
    (write-string ",\"caller_time\":" out) (num (edge-caller-time e))
    (write-string ",\"callee_time\":" out) (num (edge-callee-time e))
    (write-string "}" out))
  (write-string "]" out))
(define (put-node nd)
  (write-string "{\"id\":" out) (id nd)
  (write-string ",\"total\":" out) (num (node-total nd))
  (write-string ",\"self\":" out) (num (node-self nd))
  (write-string ",\"thread_ids\":[" out)
  (write-string (string-join (map number->string (node-thread-ids nd)) ",")
                out)
  (write-string "],\"callers\":" out) (edges (node-callers nd) edge-caller)
  (write-string ",\"callees\":" out) (edges (node-callees nd) edge-callee)
  (write-string "}" out))

(define (main)
  (write-string "{\"total_time\":" out) (num (profile-total-time p))
  (write-string ",\"sample_number\":" out) (num (profile-sample-number p))
  (write-string ",\"thread_times\":[" out)
  (for ([tt (in-list (profile-thread-times p))] [i (in-naturals)])
    (unless (zero? i) (write-string "," out))
    (fprintf out "[~a," (car tt)) (num (cdr tt)) (write-string "]" out))
  (write-string "],\n\"nodes\":[" out)
  (for ([nd (in-list (profile-nodes p))] [i (in-naturals)])
    (write-string (if (zero? i) "\n" ",\n") out)
    (put-node nd))
  (write-string "],\n\"star_node\":" out)
  (put-node (profile-*-node p))
  (write-string "}\n" out))
(void (main))
