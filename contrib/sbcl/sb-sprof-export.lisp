;;;; sb-sprof-export.lisp - write SBCL sb-sprof's samples as an
;;;; "sbsprof-samples 1" text dump that sftools reads (sfconv, sfanalyze).
;;;;
;;;; Usage, in a running SBCL 2.x:
;;;;
;;;;   (require :sb-sprof)
;;;;   (load "contrib/sbcl/sb-sprof-export.lisp")
;;;;   (sb-sprof:with-profiling (:mode :time :sample-interval 0.001
;;;;                             :threads :all)
;;;;     (my-workload))
;;;;   (sb-sprof-export:write-samples "profile.sbsprof")
;;;;
;;;; then `sfconv profile.sbsprof -o profile.trace` (Apple Sampler) or
;;;; `sfanalyze --tree profile.sbsprof`.
;;;;
;;;; The dump format is defined in docs/formats.md, section "sbsprof".
;;;; In SBCL 2.x the C runtime keeps the samples
;;;; (hash-consed traces with hit counts) and sb-sprof converts them into
;;;; its Lisp vector only once, when a report is made: a second conversion
;;;; would find the runtime's buffers already consumed.  WRITE-SAMPLES
;;;; therefore does exactly what SB-SPROF::MAKE-CALL-GRAPH (called by
;;;; SB-SPROF:REPORT) does: stop profiling, and convert only if the vector
;;;; is still empty, storing the result in SB-SPROF::*SAMPLES*.  A REPORT
;;;; made afterwards sees the filled vector, skips the conversion and
;;;; reports the same samples; exporting after a report works too.
;;;;
;;;; Frame names are made by sb-sprof's own node lookup (SB-SPROF::LOOKUP-NODE)
;;;; and printed as REPORT prints them: a string as it is, anything else
;;;; with ~S in CL-USER without pretty printing.  Internal sb-sprof names
;;;; are looked up at run time, so a missing one gives a clear error rather
;;;; than a reader error when this file is loaded.

(defpackage :sb-sprof-export
  (:use :cl)
  (:export #:write-samples))

(in-package :sb-sprof-export)

(defun internal (package name &key (function t))
  "The symbol NAME of PACKAGE (internal or not), which must name a
function when FUNCTION is true; a clear error when this SBCL lacks it."
  (let ((sym (and (find-package package) (find-symbol name package))))
    (unless (and sym (or (not function) (fboundp sym)))
      (error "sb-sprof-export: this SBCL has no ~A::~A (tested with SBCL ~
              2.2.9); cannot export samples" package name))
    sym))

(defun call (name &rest args)
  (apply (fdefinition (internal "SB-SPROF" name)) args))

(defun samples-object ()
  (let ((samples (symbol-value (internal "SB-SPROF" "*SAMPLES*"
                                         :function nil))))
    (unless samples
      (error "sb-sprof-export: no profiling data; run ~
              sb-sprof:start-profiling or sb-sprof:with-profiling first"))
    samples))

(defun ensure-converted (samples)
  "sb-sprof's once-only conversion, as SB-SPROF::MAKE-CALL-GRAPH does it."
  (call "STOP-PROFILING")
  (when (zerop (length (call "SAMPLES-VECTOR" samples)))
    (multiple-value-bind (vector unique-trace-count threads)
        (call "CONVERT-RAW-DATA")
      (funcall (fdefinition (list 'setf (internal "SB-SPROF"
                                                  "SAMPLES-VECTOR")))
               vector samples)
      (funcall (fdefinition (list 'setf (internal "SB-SPROF"
                                                  "SAMPLES-UNIQUE-TRACE-COUNT")))
               unique-trace-count samples)
      (funcall (fdefinition (list 'setf (internal "SB-SPROF"
                                                  "SAMPLES-SAMPLED-THREADS")))
               threads samples)))
  (call "SAMPLES-VECTOR" samples))

(defun escape (string)
  "Backslash, TAB, LF and CR as \\\\ \\t \\n \\r."
  (with-output-to-string (out)
    (loop for c across string
          do (case c
               (#\\ (write-string "\\\\" out))
               (#\Tab (write-string "\\t" out))
               (#\Newline (write-string "\\n" out))
               (#\Return (write-string "\\r" out))
               (t (write-char c out))))))

(defun kind-letter (info)
  (cond ((null info) #\N)
        ((typep info 'sb-di:debug-fun) #\L)
        ((stringp info) #\F)
        ((symbolp info) #\A)
        (t #\C)))

(defun raw-name (info)
  "What sb-sprof's report prints for INFO's node; \"\" for NIL."
  (let ((node (and info (call "LOOKUP-NODE" info))))
    (if (null node)
        ""
        (let ((name (call "NODE-NAME" node)))
          (if (stringp name)
              name
              (let ((*package* (find-package :cl-user))
                    (*print-pretty* nil)
                    (*print-length* nil)
                    (*print-level* nil)
                    (*print-readably* nil))
                (prin1-to-string name)))))))

(defun source-path (info)
  "The source file of a Lisp function's code, or NIL."
  (when (typep info 'sb-di:debug-fun)
    (ignore-errors
     (let* ((code (funcall (internal "SB-DI" "COMPILED-DEBUG-FUN-COMPONENT")
                           info))
            (dinfo (funcall (internal "SB-KERNEL" "%CODE-DEBUG-INFO")
                            code))
            (source (funcall (internal "SB-C" "DEBUG-INFO-SOURCE") dinfo))
            (path (funcall (internal "SB-C" "DEBUG-SOURCE-NAMESTRING")
                           source)))
       (and (stringp path) (plusp (length path)) path)))))

(defun thread-name (thread)
  (let ((name (ignore-errors (sb-thread:thread-name thread))))
    (if (stringp name) name "")))

(defmacro do-traces ((vector thread start end) &body body)
  "Run BODY for each trace of sb-sprof's vector: [(TRACE-START . END)
THREAD info pc info pc ...], frames leaf first."
  (let ((i (gensym)) (head (gensym)))
    `(loop with ,i = 0
           while (< ,i (length ,vector))
           do (let ((,head (aref ,vector ,i)))
                (unless (and (consp ,head) (integerp (cdr ,head))
                             (< ,i (cdr ,head) (1+ (length ,vector))))
                  (error "sb-sprof-export: unexpected sample vector ~
                          layout at index ~D: ~S" ,i ,head))
                (let ((,thread (aref ,vector (1+ ,i)))
                      (,start (+ ,i 2))
                      (,end (cdr ,head)))
                  ,@body)
                (setf ,i (cdr ,head))))))

(defun pin-code-pages-binding ()
  "SB-KERNEL:*GC-PIN-CODE-PAGES* with the bit MAKE-CALL-GRAPH sets while
it walks the vector, when this SBCL has it."
  (let ((sym (find-symbol "*GC-PIN-CODE-PAGES*" "SB-KERNEL")))
    (if (and sym (boundp sym))
        (values (list sym) (list (logior (symbol-value sym) 2)))
        (values nil nil))))

(defun write-samples (path &key (if-exists :supersede))
  "Write the current sb-sprof session's samples to PATH as an
\"sbsprof-samples 1\" dump.  Returns the number of sample lines."
  (let* ((samples (samples-object))
         (vector (ensure-converted samples))
         (names (make-hash-table :test 'eq))     ; info -> raw name
         (sources (make-hash-table :test 'equal)) ; raw name -> path
         (source-order '())
         (threads '())
         (nlines 0))
    (multiple-value-bind (pin-vars pin-vals) (pin-code-pages-binding)
      (progv (cons (internal "SB-SPROF" "*NAME->NODE*" :function nil)
                   pin-vars)
          (cons (make-hash-table :test 'equal) pin-vals)
        ;; first pass: threads, names and sources
        (do-traces (vector thread start end)
          (incf nlines)
          (unless (member thread threads :test #'eq)
            (push thread threads))
          (loop for j from start below end by 2
                for info = (aref vector j)
                do (unless (nth-value 1 (gethash info names))
                     (let ((name (raw-name info))
                           (path (source-path info)))
                       (setf (gethash info names) name)
                       (when (and path (not (gethash name sources)))
                         (setf (gethash name sources) path)
                         (push name source-order))))))
        (setf threads (nreverse threads))
        (with-open-file (out path :direction :output
                                  :if-exists if-exists
                                  :if-does-not-exist :create
                                  :external-format :utf-8)
          (format out "sbsprof-samples 1~%")
          (format out "@lisp~C~A~%" #\Tab
                  (escape (format nil "~A ~A" (lisp-implementation-type)
                                  (lisp-implementation-version))))
          (format out "@mode~C~(~A~)~%" #\Tab (call "SAMPLES-MODE" samples))
          (let ((interval (call "SAMPLES-SAMPLE-INTERVAL" samples)))
            ;; a float prints as given (0.001, not 0.0010000000474974513)
            (format out "@sample-interval~C~F~%" #\Tab
                    (if (floatp interval) interval (float interval 1d0))))
          (format out "@trace-count~C~D~%" #\Tab
                  (call "SAMPLES-TRACE-COUNT" samples))
          (let ((unique (call "SAMPLES-UNIQUE-TRACE-COUNT" samples)))
            (when (integerp unique)
              (format out "@unique-trace-count~C~D~%" #\Tab unique)))
          (format out "@sample-count~C~D~%" #\Tab nlines)
          (loop for th in threads for i from 0
                do (format out "@thread~C~D~C~A~%" #\Tab i #\Tab
                           (escape (thread-name th))))
          (dolist (name (reverse source-order))
            (format out "@source~C~A~C~A~%" #\Tab (escape name) #\Tab
                    (escape (gethash name sources))))
          (do-traces (vector thread start end)
            (format out "~D~C~D" (position thread threads :test #'eq)
                    #\Tab (floor (- end start) 2))
            (loop for j from start below end by 2
                  for info = (aref vector j)
                  for pc = (aref vector (1+ j))
                  do (format out "~C~C 0x~(~X~) ~A" #\Tab
                             (kind-letter info)
                             (if (integerp pc) pc 0)
                             (escape (gethash info names))))
            (terpri out))
          (format out "@end~%"))))
    nlines))
