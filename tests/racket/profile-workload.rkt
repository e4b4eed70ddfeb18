#lang racket/base
;; profile-workload.rkt - profile a small workload with Racket's own
;; sampler (profile-lib), write the snapshots with the exporter, and print
;; what Racket's text renderer prints for the same snapshots, every node
;; shown (no hiding) and sources not cut.
;;
;;     racket tests/racket/profile-workload.rkt EXPORTER OUT.json [hand] > render.txt
;;
;; With "hand", the snapshots are written by hand instead (the shape
;; (sampler 'get-snapshots) returns): fixed times, recursion, two frames
;; named `loop` at two places, a frame without a name, an empty stack, two
;; threads.
(require profile/sampler profile/analyzer profile/render-text)

(define args (current-command-line-arguments))
(define write-sftools-samples
  (dynamic-require (path->complete-path (vector-ref args 0))
                   'write-sftools-samples))

;; recursion (fib calls itself), a lambda without a name, two loops of
;; one name in two places, two threads
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (churn n)
  (for/fold ([s 0]) ([i (in-range n)])
    (+ s (string-length (number->string i)))))
(define count-a
  (letrec ([helper (λ (n) (if (< n 2) 1 (+ (helper (- n 1)) (helper (- n 2)))))])
    helper))
(define count-b
  (letrec ([helper (λ (n) (if (< n 2) 2 (+ (helper (- n 2)) (helper (- n 1)))))])
    helper))
(define (work)
  (for ([k 12])
    (fib 22) (churn 60000) ((λ (x) (fib x)) 20) (count-a 21) (count-b 21)))
(define (sampled)
  (define worker (thread (λ () (for ([k 8]) (churn 100000) (fib 21)))))
  (define sampler (create-sampler (list (current-thread) worker) 0.001))
  (work)
  (thread-wait worker)
  (sampler 'stop)
  (sampler 'get-snapshots))
(define (hand)
  (define (at line col name) (cons name (srcloc "/src/m.rkt" line col 1 1)))
  (define main (at 1 0 'main))
  (define loop-a (at 5 2 'loop))
  (define loop-b (at 9 2 'loop))
  (define anon (at 12 4 #f))
  (define f (at 20 0 'f))
  ;; newest first; stacks innermost first
  (cons 120
        (list (list* 1 16 f main '())
              (list* 0 70 loop-b main '())
              (list* 1 12 anon f main '())
              (list* 0 40 '())
              (list* 0 30 loop-a loop-a main '())
              (list* 1 5 f main '())
              (list* 0 20 loop-a main '())
              (list* 0 0 main '()))))
(define snapshots
  (if (and (> (vector-length args) 2) (equal? (vector-ref args 2) "hand"))
      (hand)
      (sampled)))
(void (write-sftools-samples snapshots (vector-ref args 1)))
(render (analyze-samples snapshots)
        #:hide-self 0 #:hide-subs 0 #:truncate-source 10000)
